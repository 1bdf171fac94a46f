// libFuzzer target: pass 1 with workers reading stretches of the events array
// against pass 1 on one thread, on arbitrary bytes. Both must build the same
// index or fail with the same message (a difference traps).
#include <cstddef>
#include <cstdint>
#include <string>

#include "support/index_fingerprint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  if (testsupport::index_fingerprint(bytes, 0) != testsupport::index_fingerprint(bytes, 2))
    __builtin_trap();
  return 0;
}

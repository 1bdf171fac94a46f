// Random trace events, for tests that compare two ways of reading an event.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace testsupport {

// Random events: keys the scan looks for and others, in any order, some
// repeated or spelled with escapes; values of every kind, strings holding the
// scan's structural characters, whitespace anywhere; lengths across blocks.
class RandomEventMaker {
 public:
  explicit RandomEventMaker(uint32_t seed) : random_(seed) {}

  std::string event() {
    static const std::vector<std::string> keys = {"ph", "cat",       "name", "pid",  "tid",
                                                  "ts", "id",        "dur",  "args", "bp",
                                                  "s",  "p\\u0069d", "pidx", "xts",  "t"};
    std::string out = "{" + space();
    const size_t count = pick(9);
    for (size_t i = 0; i < count; ++i) {
      if (i) out += "," + space();
      out += "\"" + keys[pick(keys.size())] + "\"" + space() + ":" + space() + value(0) + space();
    }
    return out + "}";
  }

 private:
  size_t pick(size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(random_); }
  std::string space() {
    static const char* spaces[] = {"", "", "", " ", "\n  ", "\t", "\r\n"};
    return spaces[pick(7)];
  }
  std::string text() {
    static const std::vector<std::string> pieces = {"a",
                                                    "gemm",
                                                    ":",
                                                    ",",
                                                    "{",
                                                    "}",
                                                    "[",
                                                    "]",
                                                    "\\\"",
                                                    "\\\\",
                                                    "\\u0041",
                                                    " ",
                                                    "\\\"pid\\\": 1",
                                                    "void at::native::kernel<128>(Params)",
                                                    std::string(40, 'x')};
    std::string out;
    const size_t count = pick(6);
    for (size_t i = 0; i < count; ++i) {
      const std::string& piece = pieces[pick(pieces.size())];
      if (piece.find('\\') != std::string::npos && pick(4) != 0) continue;  // mostly none
      out += piece;
    }
    return out;
  }
  std::string value(int depth) {
    switch (depth < 2 ? pick(8) : pick(4)) {
      case 0:
        return std::to_string(pick(100000));
      case 1:
        return "1712197196127.604";
      case 2:
        return "\"" + text() + "\"";
      case 3: {
        // Other literals and number spellings, one longer than a 32-byte compare.
        static const char* const kScalars[] = {"true",
                                               "null",
                                               "-3e5",
                                               "-0.5E+12",
                                               "0",
                                               "1.5e-7",
                                               "123456789012345678901234567890123456.5"};
        return kScalars[pick(7)];
      }
      case 4:
      case 5: {
        std::string out = "{" + space();
        const size_t count = pick(4);
        for (size_t i = 0; i < count; ++i) {
          if (i) out += ",";
          out += "\"" + std::string(pick(2) ? "pid" : "k") + "\":" + space() + value(depth + 1);
        }
        return out + "}";
      }
      default: {
        std::string out = "[";
        const size_t count = pick(4);
        for (size_t i = 0; i < count; ++i) out += (i ? "," : "") + space() + value(depth + 1);
        return out + "]";
      }
    }
  }
  std::mt19937 random_;
};

}  // namespace testsupport

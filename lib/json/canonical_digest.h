// A 128-bit digest of a JSON value's canonical text (spec 0), worked out from
// the value as read instead of from the text written out: two values get the
// same digest exactly when their canonical texts are equal (but for a chance
// collision, about 2^-128 a pair). Annotation identities (spec 6) and slice
// signatures (--verify) are compared through it. Writing each annotation's
// canonical text (members sorted, strings escaped, numbers printed) and hashing
// it took ~4 000 instructions per annotation, about a twentieth of pass 1.
//
// Both event readers (json/tape_reader.h, json/event_parser.h) build digests
// from these parts, so that they agree; tests/unit/canonical_digest_test.cpp
// checks digests against canonical texts.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "util/hash128.h"

namespace tracecompact::json {

// Scalars, as their canonical texts tell them apart: integers within int64 by
// value, other integers by their digits, other numbers by their double (its
// shortest text is one per double, and -0.0 is not 0.0), strings by their
// unescaped bytes.
Hash128 null_digest();
Hash128 bool_digest(bool value);
Hash128 integer_digest(int64_t value);
Hash128 digits_digest(std::string_view digits);
Hash128 double_digest(double value);
Hash128 string_digest(std::string_view text);

// An array: its elements' digests in order.
class ArrayDigest {
 public:
  ArrayDigest();
  void add(const Hash128& element);
  Hash128 finish() const;

 private:
  uint64_t h1_, h2_;
  uint64_t count_ = 0;
};

// An object: its members' digests in any order (the canonical text sorts them
// by key) and, of a repeated key, only the last. Keys are kept as views until
// finish(); clear() readies it for the next object, keeping its storage.
class ObjectDigest {
 public:
  void clear();
  void add(std::string_view key, const Hash128& value);
  Hash128 finish();

 private:
  struct Member {
    std::string_view key;
    uint64_t key_word;  // the key's first 8 bytes and its length: most keys differ there
    Hash128 digest;
  };
  void drop(const Member& member);
  void drop_repeated_keys();

  std::vector<Member> members_;
  // The members' digests summed (the sum does not depend on their order).
  uint64_t sum_high_ = 0, sum_low_ = 0;
  uint64_t count_ = 0;
};

// Members a digest leaves out: a few short keys, compared by length first.
struct SkipKeys {
  const std::string_view* keys = nullptr;
  size_t count = 0;
  bool has(std::string_view key) const {
    for (size_t i = 0; i < count; ++i)
      if (key.size() == keys[i].size() && std::memcmp(key.data(), keys[i].data(), key.size()) == 0)
        return true;
    return false;
  }
};

// What each digest of an event leaves out, at the top and inside args: one
// list for both readers. An annotation's identity (spec 6) is its canonical
// text without ts, dur and tid; a slice's signature (what compaction and merge
// alignment leave unchanged) without pid, tid, ts and args.stream.
struct EventDigestSkips {
  SkipKeys top;
  SkipKeys args;  // none: args is digested as any value
};
inline constexpr std::string_view kAnnotationIdentityKeys[] = {"ts", "dur", "tid"};
inline constexpr std::string_view kSliceSignatureKeys[] = {"pid", "tid", "ts"};
inline constexpr std::string_view kSliceSignatureArgsKeys[] = {"stream"};
inline constexpr EventDigestSkips kAnnotationIdentity{{kAnnotationIdentityKeys, 3}, {}};
inline constexpr EventDigestSkips kSliceSignature{{kSliceSignatureKeys, 3},
                                                  {kSliceSignatureArgsKeys, 1}};

}  // namespace tracecompact::json

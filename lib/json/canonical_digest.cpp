#include "json/canonical_digest.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace tracecompact::json {
namespace {

using namespace hash_detail;

// One seed per kind of value, so that no two kinds share digests.
enum Kind : uint64_t {
  kNull = 0x6e756c6c00000001ull,
  kFalse = 0x66616c7365000002ull,
  kTrue = 0x7472756500000003ull,
  kInteger = 0x696e746567650004ull,
  kDigits = 0x6469676974730005ull,
  kDouble = 0x646f75626c650006ull,
  kString = 0x737472696e670007ull,
  kArray = 0x6172726179000008ull,
  kObject = 0x6f626a6563740009ull,
  kMember = 0x6d656d626572000aull,
};

// Two words of `kind`.
Hash128 words_digest(Kind kind, uint64_t a, uint64_t b) {
  uint64_t h1 = kind, h2 = ~kind;
  mix_block(h1, h2, a, b);
  return seal(h1, h2);
}

// A member: its key's bytes and its value's digest. Keys are short: up to 16
// bytes they are mixed as they are, longer ones by their own hash. Also gives
// the key's first 8 bytes and length as one word, to tell keys apart quickly.
Hash128 member_digest(std::string_view key, const Hash128& value, uint64_t& key_word) {
  uint64_t h1 = kMember, h2 = ~uint64_t{kMember};
  uint64_t block[2] = {0, 0};
  if (key.size() <= 16) {
    std::memcpy(block, key.data(), key.size());
    mix_block(h1, h2, block[0], block[1]);
  } else {
    std::memcpy(block, key.data(), 8);
    const Hash128 long_key = hash128(key, kMember);
    mix_block(h1, h2, long_key.high, long_key.low);
  }
  key_word = block[0] ^ static_cast<uint64_t>(key.size()) << 56;
  h1 ^= key.size();
  mix_block(h1, h2, value.high, value.low);
  return seal(h1, h2);
}

}  // namespace

Hash128 null_digest() {
  return words_digest(kNull, 0, 0);
}
Hash128 bool_digest(bool value) {
  return words_digest(value ? kTrue : kFalse, 0, 0);
}
Hash128 integer_digest(int64_t value) {
  return words_digest(kInteger, static_cast<uint64_t>(value), 0);
}
Hash128 digits_digest(std::string_view digits) {
  return hash128(digits, kDigits);
}
Hash128 double_digest(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return words_digest(kDouble, bits, 0);
}
Hash128 string_digest(std::string_view text) {
  return hash128(text, kString);
}

ArrayDigest::ArrayDigest() : h1_(kArray), h2_(~uint64_t{kArray}) {}

void ArrayDigest::add(const Hash128& element) {
  mix_block(h1_, h2_, element.high, element.low);
  ++count_;
}

Hash128 ArrayDigest::finish() const {
  return seal(h1_ ^ count_, h2_);
}

void ObjectDigest::clear() {
  members_.clear();
  sum_high_ = sum_low_ = 0;
  count_ = 0;
}

void ObjectDigest::add(std::string_view key, const Hash128& value) {
  Member member{key, 0, {}};
  member.digest = member_digest(key, value, member.key_word);
  sum_high_ += member.digest.high;
  sum_low_ += member.digest.low;
  ++count_;
  members_.push_back(member);
}

Hash128 ObjectDigest::finish() {
  drop_repeated_keys();
  uint64_t h1 = kObject ^ count_, h2 = ~uint64_t{kObject};
  mix_block(h1, h2, sum_high_, sum_low_);
  return seal(h1, h2);
}

void ObjectDigest::drop(const Member& member) {
  sum_high_ -= member.digest.high;
  sum_low_ -= member.digest.low;
  --count_;
}

// Of a repeated key the last member stays, as a JSON object read by Python
// keeps it. Objects mostly have a handful of members and no repeats: pairs are
// compared up to 32 members (by their key words first), larger objects sorted
// by key.
void ObjectDigest::drop_repeated_keys() {
  const size_t n = members_.size();
  constexpr size_t kCompared = 32;
  if (n <= kCompared) {
    for (size_t i = 0; i + 1 < n; ++i)
      for (size_t j = i + 1; j < n; ++j)
        if (members_[i].key_word == members_[j].key_word && members_[i].key == members_[j].key) {
          drop(members_[i]);
          break;
        }
    return;
  }
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return members_[a].key < members_[b].key; });
  for (size_t k = 0; k + 1 < n; ++k)
    if (members_[order[k]].key == members_[order[k + 1]].key) drop(members_[order[k]]);
}

}  // namespace tracecompact::json

// The canonical text of an object's members (spec 0), as json::append_canonical
// writes it for the texts kept whole (a flow's id, distributedInfo's parts):
// members sorted by key, stably, and a repeated key keeping its last value, as
// a JSON object read by Python does. Identities and signatures are digests of
// such texts, worked out without writing them (json/canonical_digest.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracecompact::json {

// `text` as a JSON string: quoted, with '"', '\' and control characters escaped.
void append_escaped_string(std::string_view text, std::string& out);

// Stable, by key_of(member). Objects mostly have a handful of members: an
// insertion sort, without the temporary buffer std::stable_sort allocates on
// every call; larger ones stable_sort.
template <typename Member, typename KeyOf>
void sort_members_by_key(std::vector<Member>& members, KeyOf key_of) {
  auto before = [&](const Member& a, const Member& b) { return key_of(a) < key_of(b); };
  constexpr size_t kSmall = 16;
  if (members.size() > kSmall) {
    std::stable_sort(members.begin(), members.end(), before);
    return;
  }
  for (size_t i = 1; i < members.size(); ++i)
    for (size_t j = i; j > 0 && before(members[j], members[j - 1]); --j)
      std::swap(members[j], members[j - 1]);
}

// Appends {"key":value,...} of members sorted by key; of a repeated key only
// the last (the last in input order, as the sort is stable) is written.
// value_of(member) is the member's canonical value text.
template <typename Member, typename KeyOf, typename ValueOf>
void append_sorted_members(const std::vector<Member>& members, KeyOf key_of, ValueOf value_of,
                           std::string& out) {
  out += '{';
  bool first = true;
  for (size_t i = 0; i < members.size(); ++i) {
    if (i + 1 < members.size() && key_of(members[i + 1]) == key_of(members[i])) continue;
    if (!first) out += ',';
    first = false;
    append_escaped_string(key_of(members[i]), out);
    out += ':';
    out += value_of(members[i]);
  }
  out += '}';
}

}  // namespace tracecompact::json

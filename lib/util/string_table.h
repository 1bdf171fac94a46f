// Interned strings: each distinct string is stored once and named by a dense id.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>

namespace tracecompact {

class StringTable {
 public:
  static constexpr uint32_t kNone = 0xFFFFFFFFu;

  uint32_t intern(std::string_view text) {
    auto found = ids_.find(text);
    if (found != ids_.end()) return found->second;
    const auto id = static_cast<uint32_t>(strings_.size());
    strings_.emplace_back(text);
    ids_.emplace(strings_.back(), id);
    return id;
  }
  uint32_t find(std::string_view text) const {
    auto found = ids_.find(text);
    return found == ids_.end() ? kNone : found->second;
  }
  const std::string& operator[](uint32_t id) const { return strings_[id]; }
  size_t size() const { return strings_.size(); }

 private:
  std::deque<std::string> strings_;  // stable addresses for the views in ids_
  std::unordered_map<std::string_view, uint32_t> ids_;
};

}  // namespace tracecompact

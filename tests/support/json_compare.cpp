#include "support/json_compare.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>

#include "source/trace_input.h"

namespace testsupport {
namespace {

using rapidjson::Value;

std::string describe(const Value& value) {
  if (value.IsString()) return std::string("\"") + value.GetString() + "\"";
  if (value.IsNumber()) return std::to_string(value.GetDouble());
  if (value.IsBool()) return value.GetBool() ? "true" : "false";
  if (value.IsNull()) return "null";
  return value.IsObject() ? "{...}" : "[...]";
}

bool ignored(const std::string& path, const std::vector<std::string>& ignore) {
  for (const auto& p : ignore)
    if (path == "$." + p) return true;
  return false;
}

// A repeated key's last value, as Python's json keeps it (the contract's
// trace_diff.py reads both sides with it); null when the key is absent.
const Value* last_member(const Value& object, const Value& name) {
  const Value* found = nullptr;
  for (auto it = object.MemberBegin(); it != object.MemberEnd(); ++it)
    if (it->name == name) found = &it->value;
  return found;
}

std::optional<std::string> compare(const Value& a, const Value& b, const std::string& path,
                                   const std::vector<std::string>& ignore) {
  if (a.IsNumber() && b.IsNumber()) {
    if (a.GetDouble() != b.GetDouble()) return path + ": " + describe(a) + " != " + describe(b);
    return std::nullopt;
  }
  if (a.GetType() != b.GetType() && !(a.IsBool() && b.IsBool()))
    return path + ": type differs (" + describe(a) + " vs " + describe(b) + ")";
  if (a.IsObject()) {
    for (auto it = a.MemberBegin(); it != a.MemberEnd(); ++it) {
      const std::string child = path + "." + it->name.GetString();
      if (ignored(child, ignore) || last_member(a, it->name) != &it->value) continue;
      const Value* found = last_member(b, it->name);
      if (!found) return child + ": only in expected";
      if (auto d = compare(it->value, *found, child, ignore)) return d;
    }
    for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
      const std::string child = path + "." + it->name.GetString();
      if (!ignored(child, ignore) && !last_member(a, it->name)) return child + ": only in actual";
    }
    return std::nullopt;
  }
  if (a.IsArray()) {
    const auto n = std::min(a.Size(), b.Size());
    for (rapidjson::SizeType i = 0; i < n; ++i)
      if (auto d = compare(a[i], b[i], path + "[" + std::to_string(i) + "]", ignore)) return d;
    if (a.Size() != b.Size())
      return path + ": length " + std::to_string(a.Size()) + " != " + std::to_string(b.Size());
    return std::nullopt;
  }
  if (a != b) return path + ": " + describe(a) + " != " + describe(b);
  return std::nullopt;
}

// Passes a document's SAX events on, with every number read from its text by
// std::from_chars: correctly rounded, as Python's float() reads it, where
// RapidJSON's own conversion is a unit in the last place off for some long
// spellings (`999999999999999955e-25`, which is 1e-07). Numbers compare as
// doubles, as the contract says.
class ExactNumbers {
 public:
  explicit ExactNumbers(rapidjson::Document& document) : document_(document) {}
  bool Null() { return document_.Null(); }
  bool Bool(bool b) { return document_.Bool(b); }
  bool Int(int) { return false; }  // numbers arrive raw (kParseNumbersAsStringsFlag)
  bool Uint(unsigned) { return false; }
  bool Int64(int64_t) { return false; }
  bool Uint64(uint64_t) { return false; }
  bool Double(double) { return false; }
  bool RawNumber(const char* text, rapidjson::SizeType length, bool) {
    double value = 0;
    const auto [end, error] = std::from_chars(text, text + length, value);
    // Out of range: the nearest of +-inf and 0 by the sign and the exponent.
    if (error == std::errc::result_out_of_range)
      value = std::strtod(std::string(text, length).c_str(), nullptr);
    else if (error != std::errc() || end != text + length)
      return false;
    return document_.Double(value);
  }
  bool String(const char* text, rapidjson::SizeType length, bool copy) {
    return document_.String(text, length, copy);
  }
  bool StartObject() { return document_.StartObject(); }
  bool Key(const char* text, rapidjson::SizeType length, bool copy) {
    return document_.Key(text, length, copy);
  }
  bool EndObject(rapidjson::SizeType members) { return document_.EndObject(members); }
  bool StartArray() { return document_.StartArray(); }
  bool EndArray(rapidjson::SizeType elements) { return document_.EndArray(elements); }

 private:
  rapidjson::Document& document_;
};

void parse(rapidjson::Document& document, const std::string& text, const char* which) {
  rapidjson::ParseResult result;
  auto generate = [&](rapidjson::Document& target) {
    ExactNumbers handler(target);
    rapidjson::Reader reader;
    rapidjson::StringStream stream(text.c_str());
    result = reader.Parse<rapidjson::kParseNumbersAsStringsFlag>(stream, handler);
    return !result.IsError();
  };
  document.Populate(generate);
  if (result.IsError())
    throw std::runtime_error(std::string(which) +
                             " is not valid JSON: " + rapidjson::GetParseError_En(result.Code()) +
                             " at " + std::to_string(result.Offset()));
}

}  // namespace

std::optional<std::string> first_difference(const std::string& expected_json,
                                            const std::string& actual_json,
                                            const std::vector<std::string>& ignore) {
  rapidjson::Document expected, actual;
  parse(expected, expected_json, "expected");
  parse(actual, actual_json, "actual");
  return compare(expected, actual, "$", ignore);
}

std::string read_file(const std::string& path) {
  const auto input = tracecompact::TraceInput::open_path(path);
  auto source = input.open();
  std::string bytes;
  char buffer[1 << 16];
  for (size_t n; (n = source->read(buffer, sizeof buffer)) > 0;) bytes.append(buffer, n);
  return bytes;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace testsupport

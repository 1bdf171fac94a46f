#include "support/json_compare.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

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
      if (ignored(child, ignore)) continue;
      auto found = b.FindMember(it->name);
      if (found == b.MemberEnd()) return child + ": only in expected";
      if (auto d = compare(it->value, found->value, child, ignore)) return d;
    }
    for (auto it = b.MemberBegin(); it != b.MemberEnd(); ++it) {
      const std::string child = path + "." + it->name.GetString();
      if (!ignored(child, ignore) && !a.HasMember(it->name)) return child + ": only in actual";
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

void parse(rapidjson::Document& document, const std::string& text, const char* which) {
  document.Parse<rapidjson::kParseFullPrecisionFlag>(text.c_str(), text.size());
  if (document.HasParseError())
    throw std::runtime_error(std::string(which) + " is not valid JSON: " +
                             rapidjson::GetParseError_En(document.GetParseError()) + " at " +
                             std::to_string(document.GetErrorOffset()));
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

#include "json/event_parser.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>

#include "json/canonical_members.h"
#include "json/number_format.h"
#include "json/whitespace.h"
#include "tracecompact/error.h"

namespace tracecompact {

namespace od = simdjson::ondemand;
using simdjson::error_code;

const char* json_kind_name(JsonKind kind) {
  switch (kind) {
    case JsonKind::kAbsent:
      return "absent";
    case JsonKind::kNull:
      return "null";
    case JsonKind::kBool:
      return "a boolean";
    case JsonKind::kNumber:
      return "a number";
    case JsonKind::kString:
      return "a string";
    case JsonKind::kObject:
      return "an object";
    case JsonKind::kArray:
      return "an array";
  }
  return "?";
}

namespace json {

std::string_view trim_token(std::string_view token) {
  while (!token.empty() && is_json_whitespace(token.back())) token.remove_suffix(1);
  return token;
}

namespace {

// An integer too large for simdjson's numbers (`error`: what simdjson said of
// the token; anything else keeps it): a double where times are read (spec 0),
// its own digits in canonical texts. Fields whose integer value the rules use
// refuse it (EventParser::refuse_oversized_integers).
error_code read_oversized_integer(std::string_view token, error_code error, JsonScalar& out) {
  if (!oversized_integer(token)) return error;
  double value = 0;
  const auto parsed = std::from_chars(token.data(), token.data() + token.size(), value);
  if (parsed.ec != std::errc() || !std::isfinite(value)) return simdjson::NUMBER_ERROR;
  out.kind = JsonKind::kNumber;
  out.raw = token;
  out.integer = false;
  out.oversized = true;
  out.int_value = 0;
  out.number = value;
  return simdjson::SUCCESS;
}

// Tokens up to this long hold at most 19 digits, which simdjson's get_number() reads.
constexpr size_t kLongestQuickNumber = 19;

// Numbers: simdjson validates them; the token text decides integer-ness (spec 0:
// "-0" is the integer 0, while simdjson reads it as a double).
error_code read_number(od::value& value, JsonScalar& out) {
  const std::string_view token = trim_token(value.raw_json_token());
  od::number number;
  // Whatever error simdjson gives an integer beyond 64 bits, it is read there.
  if (auto e = value.get_number().get(number)) return read_oversized_integer(token, e, out);
  out.kind = JsonKind::kNumber;
  out.raw = token;
  out.oversized = false;
  // simdjson's own type decides, except for the one integer it reads as a
  // double: "-0" (spec 0: an integer). Integers beyond int64 stay non-integer.
  switch (number.get_number_type()) {
    case od::number_type::signed_integer:
      out.integer = true;
      out.int_value = number.get_int64();
      out.number = static_cast<double>(out.int_value);
      break;
    case od::number_type::unsigned_integer:
      out.integer = false;
      out.beyond_int64 = number.get_uint64();
      out.number = static_cast<double>(out.beyond_int64);
      break;
    default:
      out.number = number.get_double();
      // simdjson 3.0.1's get_number() leaves 0 for a decimal of more than 19
      // digits (its slow path writes no value there), though it has checked
      // the token and its range: read the token.
      if (token.size() > kLongestQuickNumber) out.number = read_number_token(token);
      out.integer = out.number == 0 && is_integer_token(token);
      out.int_value = 0;
      if (out.integer) out.number = 0.0;
      break;
  }
  return simdjson::SUCCESS;
}

// simdjson's stage 1 has checked the UTF-8 and the unescaped control characters
// of every string in the document, so a string without a backslash is valid as
// it stands and is read in place; only escapes need the unescaping parse.
bool has_backslash(std::string_view text) {
  return std::memchr(text.data(), '\\', text.size()) != nullptr;
}

// The value is consumed either way (get_raw_json_string() only steps past it):
// left unconsumed, a string followed by ':' would be skipped as if it were a key.
error_code read_string(od::value& value, std::string_view& out) {
  const std::string_view token = trim_token(value.raw_json_token());
  if (token.size() >= 2 && token.back() == '"' && !has_backslash(token)) {
    od::raw_json_string ignored;
    if (auto e = value.get_raw_json_string().get(ignored)) return e;
    out = token.substr(1, token.size() - 2);
    return simdjson::SUCCESS;
  }
  return value.get_string().get(out);
}

error_code check_string(od::value& value) {
  std::string_view ignored;
  return read_string(value, ignored);
}

}  // namespace

error_code read_key(od::field& field, std::string_view& key) {
  const char* const start = field.key().raw();
  const char* end = start;
  while (*end != '"' && *end != '\\') ++end;
  if (*end == '"') {
    key = std::string_view(start, static_cast<size_t>(end - start));
    return simdjson::SUCCESS;
  }
  return field.unescaped_key().get(key);
}

error_code read_value(od::value value, JsonScalar& out, int depth) {
  od::json_type type;
  if (auto e = value.type().get(type)) return e;
  switch (type) {
    case od::json_type::number:
      return read_number(value, out);
    case od::json_type::string:
      out.kind = JsonKind::kString;
      return read_string(value, out.text);
    case od::json_type::boolean:
      out.kind = JsonKind::kBool;
      return value.get_bool().get(out.boolean);
    case od::json_type::null: {
      bool is_null = false;
      if (auto e = value.is_null().get(is_null)) return e;
      out.kind = JsonKind::kNull;
      return is_null ? simdjson::SUCCESS : simdjson::N_ATOM_ERROR;
    }
    case od::json_type::object:
      out.kind = JsonKind::kObject;
      return validate(value, depth);
    case od::json_type::array:
      out.kind = JsonKind::kArray;
      return validate(value, depth);
  }
  return simdjson::INCORRECT_TYPE;
}

error_code validate(od::value value, int depth) {
  if (depth > kMaxDepth) return simdjson::DEPTH_ERROR;
  od::json_type type;
  if (auto e = value.type().get(type)) return e;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (auto e = value.get_object().get(object)) return e;
      for (auto field_result : object) {
        od::field field;
        if (auto e = std::move(field_result).get(field)) return e;
        std::string_view key;
        if (auto e = read_key(field, key)) return e;
        if (auto e = validate(field.value(), depth + 1)) return e;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::array: {
      od::array array;
      if (auto e = value.get_array().get(array)) return e;
      for (auto element_result : array) {
        od::value element;
        if (auto e = std::move(element_result).get(element)) return e;
        if (auto e = validate(element, depth + 1)) return e;
      }
      return simdjson::SUCCESS;
    }
    case od::json_type::number: {
      if (is_short_plain_number(trim_token(value.raw_json_token()))) return simdjson::SUCCESS;
      double ignored;  // parsing validates the number (and its range)
      return value.get_double().get(ignored);
    }
    case od::json_type::string:
      return check_string(value);
    default: {
      JsonScalar scalar;
      return read_value(value, scalar, depth);
    }
  }
}

void append_escaped_string(std::string_view text, std::string& out) {
  static const char* kHex = "0123456789abcdef";
  out += '"';
  // Most strings need no escape: appended in one piece up to the first that does.
  size_t plain = 0;
  while (plain < text.size()) {
    const auto byte = static_cast<unsigned char>(text[plain]);
    if (byte < 0x20 || byte == '"' || byte == '\\') break;
    ++plain;
  }
  out.append(text.data(), plain);
  text.remove_prefix(plain);
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (byte < 0x20) {
      out += "\\u00";
      out += kHex[byte >> 4];
      out += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  out += '"';
}

namespace {

// The canonical text of a value (spec 0), in one of two forms: written out
// (TextForm: flow ids and distributedInfo's parts are compared as texts) or
// digested without writing it (DigestForm: identities and signatures). One
// walk serves both, so that they cannot disagree on what the text is.
struct TextForm {
  using Value = std::string;  // appended to
  static void scalar(const JsonScalar& scalar, std::string& out) {
    switch (scalar.kind) {
      case JsonKind::kNumber:
        if (scalar.integer)
          out += std::to_string(scalar.int_value);
        else if (is_integer_token(scalar.raw))
          out += scalar.raw;  // an integer beyond 64 bits: its digits are canonical
        else
          out += format_double(scalar.number);
        return;
      case JsonKind::kString:
        append_escaped_string(scalar.text, out);
        return;
      case JsonKind::kBool:
        out += scalar.boolean ? "true" : "false";
        return;
      default:
        out += "null";
        return;
    }
  }
  class Array {
   public:
    void add(std::string&& element) {
      text_ += text_.size() > 1 ? "," : "";
      text_ += element;
    }
    void finish(std::string& out) { out += text_ + "]"; }

   private:
    std::string text_ = "[";
  };
  // Members are canonicalised separately, then sorted by key; a repeated key
  // keeps its last value, as a JSON object read by Python does.
  class Object {
   public:
    void add(std::string_view key, std::string&& value) {
      members_.emplace_back(std::string(key), std::move(value));
    }
    void finish(std::string& out) {
      using Member = std::pair<std::string, std::string>;
      auto key_of = [](const Member& m) -> const std::string& { return m.first; };
      sort_members_by_key(members_, key_of);
      append_sorted_members(
          members_, key_of, [](const Member& m) -> const std::string& { return m.second; }, out);
    }

   private:
    std::vector<std::pair<std::string, std::string>> members_;
  };
};

struct DigestForm {
  using Value = Hash128;  // assigned
  static void scalar(const JsonScalar& scalar, Hash128& out) {
    switch (scalar.kind) {
      case JsonKind::kNumber:
        if (scalar.integer)
          out = integer_digest(scalar.int_value);
        else if (is_integer_token(scalar.raw))
          out = digits_digest(scalar.raw);  // an integer beyond 64 bits
        else
          out = double_digest(scalar.number);
        return;
      case JsonKind::kString:
        out = string_digest(scalar.text);
        return;
      case JsonKind::kBool:
        out = bool_digest(scalar.boolean);
        return;
      default:
        out = null_digest();
        return;
    }
  }
  class Array {
   public:
    void add(Hash128&& element) { digest_.add(element); }
    void finish(Hash128& out) const { out = digest_.finish(); }

   private:
    ArrayDigest digest_;
  };
  // The keys are kept (copies) until the object's digest.
  class Object {
   public:
    void add(std::string_view key, Hash128&& value) {
      keys_.emplace_back(key);
      digest_.add(keys_.back(), value);
    }
    void finish(Hash128& out) { out = digest_.finish(); }

   private:
    std::deque<std::string> keys_;  // a deque: growing keeps the views valid
    ObjectDigest digest_;
  };
};

template <typename Form>
error_code canonical_value(od::value value, typename Form::Value& out, int depth);

template <typename Form>
error_code canonical_object(od::object object, typename Form::Value& out, int depth, SkipKeys skip,
                            SkipKeys args_skip = {}) {
  typename Form::Object members;
  for (auto field_result : object) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) return e;
    std::string_view key;
    if (auto e = read_key(field, key)) return e;
    if (skip.has(key)) {
      if (auto e = validate(field.value(), depth + 1)) return e;
      continue;
    }
    typename Form::Value member_value{};
    od::value value = field.value();
    od::json_type type;
    if (auto e = value.type().get(type)) return e;
    if (args_skip.count && key == "args" && type == od::json_type::object) {
      od::object args;
      if (auto e = value.get_object().get(args)) return e;
      if (auto e = canonical_object<Form>(args, member_value, depth + 1, args_skip)) return e;
    } else if (auto e = canonical_value<Form>(value, member_value, depth + 1)) {
      return e;
    }
    members.add(key, std::move(member_value));
  }
  members.finish(out);
  return simdjson::SUCCESS;
}

template <typename Form>
error_code canonical_value(od::value value, typename Form::Value& out, int depth) {
  if (depth > kMaxDepth) return simdjson::DEPTH_ERROR;
  od::json_type type;
  if (auto e = value.type().get(type)) return e;
  switch (type) {
    case od::json_type::object: {
      od::object object;
      if (auto e = value.get_object().get(object)) return e;
      return canonical_object<Form>(object, out, depth, SkipKeys{});
    }
    case od::json_type::array: {
      od::array array;
      if (auto e = value.get_array().get(array)) return e;
      typename Form::Array elements;
      for (auto element_result : array) {
        od::value element;
        if (auto e = std::move(element_result).get(element)) return e;
        typename Form::Value element_value{};
        if (auto e = canonical_value<Form>(element, element_value, depth + 1)) return e;
        elements.add(std::move(element_value));
      }
      elements.finish(out);
      return simdjson::SUCCESS;
    }
    default: {
      JsonScalar scalar;
      if (auto e = read_value(value, scalar, depth)) return e;
      Form::scalar(scalar, out);
      return simdjson::SUCCESS;
    }
  }
}

}  // namespace

error_code append_canonical(od::value value, std::string& out, int depth) {
  return canonical_value<TextForm>(value, out, depth);
}

error_code digest_canonical_event(od::object object, const EventDigestSkips& skips, Hash128& out) {
  return canonical_object<DigestForm>(object, out, 0, skips.top, skips.args);
}

}  // namespace json

EventParser::EventParser(Reader reader) : quick_(reader == Reader::kQuick) {}

simdjson::padded_string_view EventParser::load(std::string_view text) {
  const size_t needed = text.size() + simdjson::SIMDJSON_PADDING;
  if (buffer_.size() < needed) buffer_.resize(std::max(needed, buffer_.size() * 2));
  std::memcpy(buffer_.data(), text.data(), text.size());
  std::memset(buffer_.data() + text.size(), ' ', simdjson::SIMDJSON_PADDING);
  return simdjson::padded_string_view(buffer_.data(), text.size(), buffer_.size());
}

namespace {

// A long token shown by its head and its length.
std::string shown_token(std::string_view token) {
  constexpr size_t kShown = 40;
  if (token.size() <= kShown) return std::string(token);
  return std::string(token.substr(0, kShown)) + "... (" + std::to_string(token.size()) +
         " characters)";
}

}  // namespace

void EventParser::fail(error_code error) const {
  std::string what = simdjson::error_message(error);
  uint64_t offset = origin_.byte_offset;
  const char* location = nullptr;
  std::string_view at;
  if (document_ready_ &&
      const_cast<simdjson::ondemand::document&>(document_).current_location().get(location) ==
          simdjson::SUCCESS &&
      location >= document_text_.data() &&
      location < document_text_.data() + document_text_.size()) {
    offset += static_cast<uint64_t>(location - document_text_.data());
    at = std::string_view(
        location, static_cast<size_t>(document_text_.data() + document_text_.size() - location));
    if (at.substr(0, 3) == "NaN" || at.substr(0, 8) == "Infinity" || at.substr(0, 9) == "-Infinity")
      what = "NaN and Infinity are not JSON numbers";
  }
  if (error == simdjson::NUMBER_ERROR) {
    const auto integer = oversized_integer(at);
    what = integer ? "the integer " + shown_token(*integer) + " does not fit in 64 bits"
                   : "a number is malformed or out of double range";
  }
  if (error == simdjson::DEPTH_ERROR)
    what = "nesting deeper than " + std::to_string(json::kMaxDepth) + " levels";
  fail_input("invalid JSON in event " + std::to_string(origin_.index) + " (byte offset " +
             std::to_string(offset) + "): " + what);
}

namespace {

// A key the tool reads may appear once per object (spec 12).
void take_once(JsonScalar& slot, od::value value, std::string_view key, const EventOrigin& origin,
               error_code& error) {
  if (slot.present())
    fail_input("event " + std::to_string(origin.index) + " (byte offset " +
               std::to_string(origin.byte_offset) + ") repeats the key \"" + std::string(key) +
               "\"");
  error = json::read_value(value, slot, 1);
}

}  // namespace

void EventParser::read_args(od::value value) {
  od::json_type type;
  if (auto e = value.type().get(type)) fail(e);
  if (type != od::json_type::object) {
    JsonScalar scalar;
    if (auto e = json::read_value(value, scalar, 1)) fail(e);
    fields_.args_kind = scalar.kind;
    return;
  }
  fields_.args_kind = JsonKind::kObject;
  fields_.args_empty = true;
  od::object object;
  if (auto e = value.get_object().get(object)) fail(e);
  for (auto field_result : object) {
    fields_.args_empty = false;
    od::field field;
    if (auto e = std::move(field_result).get(field)) fail(e);
    std::string_view key;
    if (auto e = json::read_key(field, key)) fail(e);
    error_code error = simdjson::SUCCESS;
    if (key == "stream")
      take_once(fields_.args_stream, field.value(), "args.stream", origin_, error);
    else if (key == "name")
      take_once(fields_.args_name, field.value(), "args.name", origin_, error);
    else
      error = json::validate(field.value(), 2);
    if (error) fail(error);
  }
}

void EventParser::read_fields(od::object object) {
  for (auto field_result : object) {
    od::field field;
    if (auto e = std::move(field_result).get(field)) fail(e);
    std::string_view key;
    if (auto e = json::read_key(field, key)) fail(e);
    JsonScalar* const slot = fields_.slot(key);
    if (!slot && key == "args") {
      if (fields_.args_kind != JsonKind::kAbsent)
        fail_input("event " + std::to_string(origin_.index) + " (byte offset " +
                   std::to_string(origin_.byte_offset) + ") repeats the key \"args\"");
      read_args(field.value());
      continue;
    }
    error_code error = simdjson::SUCCESS;
    if (slot)
      take_once(*slot, field.value(), key, origin_, error);
    else
      error = json::validate(field.value(), 1);
    if (error) fail(error);
  }
}

const EventFields& EventParser::parse(std::string_view text, const EventOrigin& origin) {
  return parse_document(load(text), origin, quick_);
}

const EventFields& EventParser::parse_in_place(std::string_view text, const EventOrigin& origin) {
  try {
    return parse_document(simdjson::padded_string_view(text.data(), text.size(),
                                                       text.size() + simdjson::SIMDJSON_PADDING),
                          origin, quick_);
  } catch (const Error&) {
    // simdjson reads the padding after a document, and for invalid text what it
    // reports can depend on those bytes (here the input that follows the
    // event, in a batch the next event). A fault is judged again on a copy
    // followed by spaces, so that every way of reading an event reports it
    // alike.
    return parse(text, origin);
  }
}

const EventFields& EventParser::read_again_on_demand() {
  return parse_document(
      simdjson::padded_string_view(document_text_.data(), document_text_.size(),
                                   document_text_.size() + simdjson::SIMDJSON_PADDING),
      origin_, false);
}

const EventFields& EventParser::parse_document(simdjson::padded_string_view text,
                                               const EventOrigin& origin, bool quick) {
  origin_ = origin;
  document_ready_ = false;
  document_text_ = std::string_view(text.data(), text.size());
  from_tape_ = quick && tape_.read(document_text_, fields_);
  if (from_tape_) return fields_;
  fields_.clear();
  if (auto e = parser_.iterate(text).get(document_)) fail(e);
  document_ready_ = true;
  od::object object;
  if (auto e = document_.get_object().get(object)) fail(e);
  read_fields(object);
  refuse_oversized_integers();
  return fields_;
}

// pid, tid and args.stream are compared and counted as integers (a lane's tid
// is above every tid): beyond 64 bits the tool cannot do what the reference does.
void EventParser::refuse_oversized_integers() const {
  for (const auto& [scalar, name] : {std::pair{&fields_.pid, "pid"}, std::pair{&fields_.tid, "tid"},
                                     std::pair{&fields_.args_stream, "args.stream"}}) {
    if (!scalar->oversized) continue;
    fail_input("event " + std::to_string(origin_.index) + " (byte offset " +
               std::to_string(origin_.byte_offset + offset_of(scalar->raw)) + "): " + name +
               ": the integer " + shown_token(scalar->raw) + " does not fit in 64 bits");
  }
}

// The digest of the last parsed event's canonical text without the members
// `skips` names: off the tape, or on demand from the rewound document.
Hash128 EventParser::canonical_digest(const json::EventDigestSkips& skips) {
  if (from_tape_) return tape_.event_digest(skips);
  document_.rewind();
  od::object object;
  if (auto e = document_.get_object().get(object)) fail(e);
  Hash128 digest;
  if (auto e = json::digest_canonical_event(object, skips, digest)) fail(e);
  return digest;
}

Hash128 EventParser::annotation_identity() {
  return canonical_digest(json::kAnnotationIdentity);
}

Hash128 EventParser::slice_signature() {
  return canonical_digest(json::kSliceSignature);
}

void EventParser::validate_value(std::string_view text, std::string_view what) {
  // Wrapped in an array so that scalar documents take the same path as any value.
  std::string wrapped;
  wrapped.reserve(text.size() + 2);
  wrapped += '[';
  wrapped += text;
  wrapped += ']';
  auto fail_value = [&](error_code e) {
    fail_input("invalid JSON in top-level value \"" + std::string(what) +
               "\": " + simdjson::error_message(e));
  };
  od::document document;
  if (auto e = parser_.iterate(load(wrapped)).get(document)) fail_value(e);
  od::value value;
  if (auto e = document.get_value().get(value)) fail_value(e);
  if (auto e = json::validate(value, 0)) fail_value(e);
}

}  // namespace tracecompact

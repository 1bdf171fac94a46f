// All output goes through one RapidJSON writer; values passed through untouched
// are copied in bulk behind the writer's own separators.
#pragma once

#include <rapidjson/writer.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "writer/output_stream.h"

namespace tracecompact {

class JsonOut {
 public:
  explicit JsonOut(ByteSink& sink) : stream_(sink), writer_(stream_) {}
  JsonOut() : writer_(stream_) {}  // into memory: see OutputStream::take()

  rapidjson::Writer<OutputStream>& writer() { return writer_; }
  OutputStream& stream() { return stream_; }

  void key(std::string_view text) {
    writer_.Key(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  }
  void string(std::string_view text) {
    writer_.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
  }
  void integer(int64_t value) { writer_.Int64(value); }
  void unsigned_integer(uint64_t value) { writer_.Uint64(value); }
  void number(double value) { writer_.Double(value); }
  // A complete JSON value, copied as it is. The writer emits the separator for an
  // empty raw value; the text follows in one copy.
  void raw(std::string_view json) {
    writer_.RawValue(json.data(), 0, rapidjson::kObjectType);
    stream_.write(json.data(), json.size());
  }
  // The separator of a raw value whose text the caller then writes to stream().
  void begin_raw_value() { writer_.RawValue("", 0, rapidjson::kObjectType); }
  // A raw value with some byte ranges replaced (sorted, not overlapping).
  struct Replacement {
    size_t at;
    size_t length;
    std::string_view text;
  };
  // Ranges are anything with `at`, `length` and `text`. The event is put
  // together in one claimed stretch of the buffer: merged events are spliced in
  // up to five places each.
  template <typename Range>
  void raw_spliced(std::string_view json, const Range* ranges, size_t count) {
    size_t size = json.size();
    for (size_t i = 0; i < count; ++i) size += ranges[i].text.size() - ranges[i].length;
    char* out = stream_.claim(size);
    if (!out) {
      raw_spliced(json, ranges, count,
                  [&](size_t i) { stream_.write(ranges[i].text.data(), ranges[i].text.size()); });
      return;
    }
    begin_raw_value();
    out = stream_.claim(size);  // the separator may have taken room
    if (!out) throw std::logic_error("claimed room vanished");
    size_t copied = 0;
    for (size_t i = 0; i < count; ++i) {
      std::memcpy(out, json.data() + copied, ranges[i].at - copied);
      out += ranges[i].at - copied;
      std::memcpy(out, ranges[i].text.data(), ranges[i].text.size());
      out += ranges[i].text.size();
      copied = ranges[i].at + ranges[i].length;
    }
    std::memcpy(out, json.data() + copied, json.size() - copied);
    stream_.commit(out + (json.size() - copied));
  }
  // The same, with range i (anything with `at` and `length`) replaced by what
  // `write_part(i)` writes to stream().
  template <typename Range, typename WritePart>
  void raw_spliced(std::string_view json, const Range* ranges, size_t count, WritePart write_part) {
    begin_raw_value();
    size_t copied = 0;
    for (size_t i = 0; i < count; ++i) {
      stream_.write(json.data() + copied, ranges[i].at - copied);
      write_part(i);
      copied = ranges[i].at + ranges[i].length;
    }
    stream_.write(json.data() + copied, json.size() - copied);
  }
  // Forgets the writer's nesting, to start a new document on the same stream.
  void reset() { writer_.Reset(stream_); }
  void start_object() { writer_.StartObject(); }
  void end_object() { writer_.EndObject(); }
  void start_array() { writer_.StartArray(); }
  void end_array() { writer_.EndArray(); }

 private:
  OutputStream stream_;
  rapidjson::Writer<OutputStream> writer_;
};

}  // namespace tracecompact

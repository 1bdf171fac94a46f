// Orchestrates one run: output naming and refusal rules (spec 12), then the
// single-trace or merge pipeline, the atomic output, and --verify.
#include <sys/stat.h>

#include <filesystem>
#include <optional>

#include "core/single_trace.h"
#include "merge/merge.h"
#include "sink/output_file.h"
#include "source/trace_input.h"
#include "tracecompact/tracecompact.h"
#include "util/thread_policy.h"
#include "verify/verifier.h"

namespace tracecompact {
namespace fs = std::filesystem;

const char* version() {
  return "0.1.0";
}

namespace {

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string default_single_output(const std::string& input) {
  if (input == "-") return "-";
  const fs::path path(input);
  std::string name = path.filename().string();
  if (ends_with(name, ".json.gz"))
    name = name.substr(0, name.size() - 8) + "_compacted.json.gz";
  else if (ends_with(name, ".json"))
    name = name.substr(0, name.size() - 5) + "_compacted.json";
  else
    name += "_compacted.json.gz";
  return (path.parent_path() / name).string();
}

// `expected_bytes`: about how much will be written, 0 if unknown (sizes the buffers).
OutputSpec output_spec(const Options& options, const std::string& path,
                       uint64_t expected_bytes = 0) {
  OutputSpec spec;
  spec.expected_bytes = expected_bytes;
  spec.path = path;
  spec.gzip = path == "-" ? options.gzip_stdout : ends_with(path, ".gz");
  spec.gzip_level = options.gzip_level;
  spec.overwrite = options.overwrite;
  spec.read_back = options.verify;
  return spec;
}

void check_options(const Options& options, const std::string& output) {
  if (options.gzip_level < 0 || options.gzip_level > 3)
    fail_usage("--level must be 0, 1, 2 or 3 (ISA-L compression levels)");
  if (options.verify && output == "-")
    fail_usage("--verify needs an output file: it re-reads what was written");
  if (options.verify && written_in_place(output))
    fail_usage("--verify needs a regular output file: it re-reads what was written, and " + output +
               " is a device or pipe");
  if (options.ranks && !options.merge_pp_ranks) fail_usage("--ranks needs --merge-pp-ranks");
  // spec 12: a file is gzip when its name ends in .gz, whatever the flags say.
  if (options.gzip_stdout && output != "-" && !ends_with(output, ".gz"))
    fail_usage("--gzip is for output to stdout; a file is gzipped when its name ends in .gz: " +
               output);
  if (options.threads > kMaxRequestedThreads)
    fail_usage("--threads must be at most " + std::to_string(kMaxRequestedThreads) +
               " (0: one per core)");
}

RunResult run_single(const Options& options) {
  const std::string output = options.output.value_or(default_single_output(options.input));
  check_options(options, output);
  check_output_allowed(output, options.overwrite);
  if (options.input != "-") {
    std::error_code error;
    if (fs::is_directory(options.input, error))
      fail_usage("input must be a trace file without --merge-pp-ranks");
  }
  PhaseTimer timer;
  const TraceInput input = TraceInput::open_path(options.input);
  SingleTraceOutcome outcome;
  {
    std::optional<SingleTraceJob> job(std::in_place, input, &timer, options.threads);
    // The output is about as large as the input (slices keep their text).
    OutputFile file(output_spec(options, output, input.json_size()));
    outcome = job->write(file.sink());
    if (options.verify) {
      // Read before it is put in place: a failed check leaves no output behind
      // and an existing file as it was. The index and plan go first.
      const std::string& written = file.finish_writing();
      job.reset();
      verify_single_output(input, written);
    }
    file.commit();
  }
  if (options.verify) timer.mark("verify");
  RunResult result;
  result.timings = timer.phases();
  result.output_path = output;
  result.summary_json = render_single_summary(outcome, options.input, output, options.verify);
  return result;
}

}  // namespace

RunResult run(const Options& options) {
  if (options.input.empty()) fail_usage("no input given");
  if (options.merge_pp_ranks) {
    if (options.input == "-") fail_usage("stdin ('-') cannot be used with --merge-pp-ranks");
    MergeRequest request;
    request.input = options.input;
    request.ranks = options.ranks;
    request.threads = options.threads;
    const std::string output = options.output.value_or(default_merge_output(options.input));
    check_options(options, output);
    check_output_allowed(output, options.overwrite);
    request.output = output_spec(options, output);
    request.verify = options.verify;
    return run_merge(request);
  }
  return run_single(options);
}

std::string compact_buffer(const std::string& trace_bytes, std::string& output_json) {
  const TraceInput input = TraceInput::from_memory(trace_bytes);
  output_json.clear();
  StringSink sink(output_json);
  SingleTraceJob job(input);
  const SingleTraceOutcome outcome = job.write(sink);
  return render_single_summary(outcome, "<memory>", "<memory>", false);
}

}  // namespace tracecompact

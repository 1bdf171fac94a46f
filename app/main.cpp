// tracecompact CLI: parses arguments, calls the library, prints the summary or
// one error line. No logic of its own.
#include <cxxopts.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "allocator_policy.h"
#include "sink/temp_files.h"
#include "tracecompact/tracecompact.h"

namespace {

tracecompact::Options parse_options(int argc, char** argv, bool& exit_now, bool& timings) {
  cxxopts::Options parser("tracecompact",
                          "Packs the GPU streams of a PyTorch CUDA-graph profiler trace into a few "
                          "semantic lanes; merges pipeline-parallel rank traces.");
  parser.positional_help("INPUT");
  parser.add_options()(
      "input", "trace file (.json or .json.gz, '-' for stdin), or a folder with --merge-pp-ranks",
      cxxopts::value<std::string>())(
      "o,output", "output file ('-' for stdout); default: <name>_compacted.json[.gz]",
      cxxopts::value<std::string>())("merge-pp-ranks",
                                     "merge rank<N>_trace.json[.gz] of a folder into one timeline")(
      "ranks", "with --merge-pp-ranks: only these ranks, e.g. 0,4 or 0-8",
      cxxopts::value<std::string>())(
      "threads",
      "worker threads that parse and render events (with --merge-pp-ranks also the ranks "
      "indexed side by side); 1 = none besides the reader and writer; default: one per core, "
      "up to 4 (0 says the same); at most 256",
      cxxopts::value<unsigned>())("overwrite", "replace an existing output")(
      "verify",
      "re-read the output before it is put in place and check it against the input "
      "(needs a regular output file)")("gzip",
                                       "gzip the output written to stdout (files: by a .gz name)")(
      "level", "gzip level 0..3 (ISA-L)", cxxopts::value<int>()->default_value("1"))(
      "timings", "print the wall time, CPU time and peak memory of each phase on stderr")(
      "version", "print the version")("h,help", "print this help");
  parser.parse_positional({"input"});
  const auto parsed = parser.parse(argc, argv);
  exit_now = false;
  if (parsed.count("help")) {
    std::cout << parser.help()
              << "\nExit codes: 0 ok, 1 invalid input, 2 usage, 3 I/O error, "
                 "128+N killed by signal N.\n";
    exit_now = true;
  } else if (parsed.count("version")) {
    std::cout << "tracecompact " << tracecompact::version() << "\n";
    exit_now = true;
  }
  tracecompact::Options options;
  if (exit_now) return options;
  if (!parsed.count("input"))
    throw tracecompact::Error(tracecompact::ErrorKind::kUsage, "no input given (see --help)");
  if (!parsed.unmatched().empty())
    throw tracecompact::Error(tracecompact::ErrorKind::kUsage,
                              "unexpected argument: " + parsed.unmatched().front());
  options.input = parsed["input"].as<std::string>();
  if (parsed.count("output")) options.output = parsed["output"].as<std::string>();
  if (parsed.count("ranks")) options.ranks = parsed["ranks"].as<std::string>();
  options.merge_pp_ranks = parsed.count("merge-pp-ranks") > 0;
  options.overwrite = parsed.count("overwrite") > 0;
  options.verify = parsed.count("verify") > 0;
  options.gzip_stdout = parsed.count("gzip") > 0;
  options.gzip_level = parsed["level"].as<int>();
  options.threads = parsed.count("threads") ? parsed["threads"].as<unsigned>() : 0;
  timings = parsed.count("timings") > 0;
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  tracecompact_cli::set_allocator_policy();
  tracecompact::install_cleanup_signal_handlers();
  try {
    bool exit_now = false, timings = false;
    const tracecompact::Options options = parse_options(argc, argv, exit_now, timings);
    if (exit_now) return 0;
    const tracecompact::RunResult result = tracecompact::run(options);
    // With the trace on stdout, the summary goes to stderr.
    std::FILE* summary_stream = result.output_path == "-" ? stderr : stdout;
    std::fprintf(summary_stream, "%s\n", result.summary_json.c_str());
    if (timings)
      for (const auto& [phase, seconds] : result.timings)
        std::fprintf(stderr, "tracecompact: %-32s %8.3f s\n", phase.c_str(), seconds);
    if (std::fflush(summary_stream) != 0 || std::ferror(summary_stream)) {
      std::fprintf(stderr, "tracecompact: error: cannot write the summary to %s: %s\n",
                   summary_stream == stdout ? "stdout" : "stderr", std::strerror(errno));
      return 3;
    }
    return 0;
  } catch (const tracecompact::Error& error) {
    std::fprintf(stderr, "tracecompact: error: %s\n", error.what());
    return error.exit_code();
  } catch (const cxxopts::exceptions::exception& error) {
    std::fprintf(stderr, "tracecompact: error: %s (see --help)\n", error.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "tracecompact: error: out of memory\n");
    return 3;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tracecompact: error: %s\n", error.what());
    return 3;
  }
}

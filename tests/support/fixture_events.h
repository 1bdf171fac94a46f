// The events of traces as the tokenizer hands them out, for tests that compare
// two readers event by event.
#pragma once

#include <string>
#include <vector>

namespace testsupport {

// The events of `trace`; of a broken trace, those before its fault.
std::vector<std::string> events_of(const std::string& trace);

// Every event of every .json file under `directory` (the fixtures).
std::vector<std::string> fixture_events(const std::string& directory);

}  // namespace testsupport

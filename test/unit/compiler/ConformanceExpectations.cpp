//===- ConformanceExpectations.cpp - Passing node tests per op ------------===//

#include "test/unit/compiler/ConformanceExpectations.h"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace fusec::testing {

PassCounts parsePassCounts(const std::string &text, const std::string &fileName) {
  PassCounts counts;
  std::istringstream lines(text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    line = line.substr(0, line.find('#'));
    std::istringstream fields(line);
    std::string op, extra;
    if (!(fields >> op))
      continue;
    const std::string where = fileName + ":" + std::to_string(number) + ": ";
    int count = -1;
    if (!(fields >> count) || count < 0 || (fields >> extra))
      throw std::runtime_error(where + "expected '<op type> <passing tests>', got '" + line + "'");
    if (!counts.emplace(op, count).second)
      throw std::runtime_error(where + "op '" + op + "' is listed twice");
  }
  return counts;
}

PassCounts readPassCounts(const std::string &path) {
  std::ifstream file(path);
  if (!file)
    throw std::runtime_error("cannot read the conformance table '" + path + "'");
  std::ostringstream text;
  text << file.rdbuf();
  return parsePassCounts(text.str(), path);
}

PassCounts countPasses(const std::vector<ConformanceOutcome> &outcomes) {
  PassCounts counts;
  for (const ConformanceOutcome &outcome : outcomes) {
    if (!outcome.passed)
      continue;
    for (const std::string &op : std::set<std::string>(outcome.ops.begin(), outcome.ops.end()))
      ++counts[op];
  }
  return counts;
}

std::vector<std::string> comparePassCounts(const PassCounts &expected, const std::vector<ConformanceOutcome> &outcomes,
                                           const std::string &tableName) {
  const PassCounts actual = countPasses(outcomes);
  std::set<std::string> ops;
  for (const auto &entry : expected)
    ops.insert(entry.first);
  for (const auto &entry : actual)
    ops.insert(entry.first);

  std::vector<std::string> messages;
  for (const std::string &op : ops) {
    const auto wantIt = expected.find(op), gotIt = actual.find(op);
    const int want = wantIt == expected.end() ? 0 : wantIt->second;
    const int got = gotIt == actual.end() ? 0 : gotIt->second;
    if (want == got)
      continue;
    std::ostringstream message;
    message << "op " << op << ": " << got << " node test" << (got == 1 ? "" : "s") << " pass, " << tableName
            << " expects " << want;
    if (got < want) {
      message << "; not passing now:";
      for (const ConformanceOutcome &outcome : outcomes)
        for (const std::string &outcomeOp : outcome.ops)
          if (outcomeOp == op && !outcome.passed) {
            message << "\n    " << outcome.test << " (" << outcome.reason << ")";
            break;
          }
    }
    message << "\n  if this change is intended, set '" << op << " " << got << "' in " << tableName;
    messages.push_back(message.str());
  }
  return messages;
}

} // namespace fusec::testing

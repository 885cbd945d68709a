//===- PtxLoops.cpp - Instructions inside the loops of PTX text -----------===//
#include "PtxLoops.h"

#include <map>
#include <sstream>
#include <utility>

namespace fusec::test {
namespace {

/// [label line, branch line] of every back edge.
std::vector<std::pair<size_t, size_t>> backEdges(const std::vector<std::string> &lines) {
  std::map<std::string, size_t> labels;
  std::vector<std::pair<size_t, size_t>> edges;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &line = lines[i];
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos)
      continue;
    const size_t colon = line.find(':');
    if (line[first] == '$' && colon != std::string::npos &&
        line.find_first_not_of(" \t", colon + 1) == std::string::npos)
      labels[line.substr(first, colon - first)] = i;
    const size_t bra = line.find("bra");
    if (bra == std::string::npos)
      continue;
    const size_t target = line.find('$', bra);
    const size_t end = line.find(';', target);
    if (target == std::string::npos || end == std::string::npos)
      continue;
    auto label = labels.find(line.substr(target, end - target));
    if (label != labels.end()) // defined above: a branch backwards
      edges.emplace_back(label->second, i);
  }
  return edges;
}

std::vector<std::string> splitLines(const std::string &text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  std::string line;
  while (std::getline(stream, line))
    lines.push_back(line);
  return lines;
}

} // namespace

std::vector<std::string> instructionsInLoops(const std::string &ptx, const std::vector<std::string> &opcodes) {
  const std::vector<std::string> lines = splitLines(ptx);
  std::vector<bool> inLoop(lines.size(), false);
  for (auto [begin, end] : backEdges(lines))
    for (size_t i = begin; i <= end; ++i)
      inLoop[i] = true;
  std::vector<std::string> found;
  for (size_t i = 0; i < lines.size(); ++i)
    if (inLoop[i])
      for (const std::string &opcode : opcodes)
        if (lines[i].find(opcode) != std::string::npos) {
          found.push_back(std::to_string(i + 1) + ":" + lines[i]);
          break;
        }
  return found;
}

size_t countLoops(const std::string &ptx) { return backEdges(splitLines(ptx)).size(); }

} // namespace fusec::test

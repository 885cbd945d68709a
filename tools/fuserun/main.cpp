//===- main.cpp - fuserun: run a compiled model.plan ------------------------===//
//
// Reads inputs from .npy files (or generates them), runs the plan through a
// runtime Session, and writes or summarizes the outputs. See --help; the run
// itself is runFuserun (FuserunRun.h).
//
//===----------------------------------------------------------------------===//

#include "tools/fuserun/FuserunOptions.h"
#include "tools/fuserun/FuserunRun.h"

#include <iostream>

using namespace fusec;

int main(int argc, char **argv) {
  fuserun::FuserunOptions options;
  try {
    options = fuserun::parseFuserunOptions(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const fuserun::UsageError &error) {
    std::cerr << "fuserun: error: " << error.what() << "\n(run 'fuserun --help' for usage)\n";
    return 2;
  }
  if (options.help) {
    std::cout << fuserun::fuserunUsage();
    return 0;
  }
  try {
    return fuserun::runFuserun(options, std::cout, std::cerr);
  } catch (const std::exception &error) {
    std::cerr << "fuserun: error: " << error.what() << "\n";
    return 1;
  }
}

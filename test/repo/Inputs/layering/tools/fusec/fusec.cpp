// A tool that does a library's work.
#include "mlir/IR/PatternMatch.h"

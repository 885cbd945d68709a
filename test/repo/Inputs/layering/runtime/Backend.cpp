// A runtime file that reaches into the compiler: the layering check must fail.
#include "ir/FuseOps.h"
#include "mlir/IR/Builders.h"
#include "runtime/Session.h"

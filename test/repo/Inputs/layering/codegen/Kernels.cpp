// Codegen must not include passes/ or the runtime beyond runtime/support/.
#include "passes/Passes.h"
#include "runtime/plan/PlanFormat.h"
#include "runtime/support/Hash.h"

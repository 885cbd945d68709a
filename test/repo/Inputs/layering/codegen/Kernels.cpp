// Codegen must not include passes/ or the runtime beyond support/.
#include "passes/Passes.h"
#include "runtime/plan/PlanFormat.h"
#include "support/Hash.h"

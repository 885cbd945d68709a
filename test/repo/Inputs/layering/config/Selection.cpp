// Planted: the config policy reaching into the passes that use it.
#include "passes/cost/CostModel.h"

// Planted: the ground floor reaching up into the runtime.
#include "runtime/Session.h"

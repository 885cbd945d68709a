// Planted: the dialect depending on the policy built on it.
#include "config/TileSelection.h"

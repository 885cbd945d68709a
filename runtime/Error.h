//===- Error.h - The runtime's exception type -------------------------------===//
//
// Every failure the runtime reports (a bad plan file, a bad input, an op it
// cannot execute) is an Error whose what() is a complete, user-facing message
// naming the file, kernel, op or input concerned.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_ERROR_H
#define FUSEC_RUNTIME_ERROR_H

#include <stdexcept>

namespace fusec::runtime {

class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_ERROR_H

//===- Diagnostics.h - User-facing compiler diagnostics --------*- C++ -*-===//
#ifndef FUSEC_COMPILER_DIAGNOSTICS_H
#define FUSEC_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

namespace fusec {

/// Formats one diagnostic the way fusec prints it:
///   model.json: node 'conv1': error: 'group' 3 must divide ...
///   model.json:4:17: error: malformed JSON: ...
///   model.json: error: graph output 'y' is not produced by any node
std::string formatDiagnostic(mlir::Diagnostic &diagnostic);

/// Prints every diagnostic of a context to stderr in that format while alive.
class FusecDiagnosticHandler : public mlir::ScopedDiagnosticHandler {
public:
  explicit FusecDiagnosticHandler(mlir::MLIRContext *context);
};

/// Collects every diagnostic of a context in that format, one per line, while
/// alive: for callers that report failures as text rather than on stderr.
class DiagnosticCollector : public mlir::ScopedDiagnosticHandler {
public:
  explicit DiagnosticCollector(mlir::MLIRContext *context);
  const std::string &text() const { return text_; }

private:
  std::string text_;
};

} // namespace fusec

#endif // FUSEC_COMPILER_DIAGNOSTICS_H

//===- Diagnostics.cpp - User-facing compiler diagnostics -----------------===//
#include "compiler/Diagnostics.h"
#include "compiler/ValueNames.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace fusec {
namespace {

StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error:
    return "error";
  case DiagnosticSeverity::Warning:
    return "warning";
  case DiagnosticSeverity::Note:
    return "note";
  case DiagnosticSeverity::Remark:
    return "remark";
  }
  llvm_unreachable("unknown severity");
}

std::string formatLocation(Location loc) {
  std::string file;
  unsigned line = 0, column = 0;
  loc->walk([&](Location inner) {
    if (auto fileLoc = llvm::dyn_cast<FileLineColLoc>(inner)) {
      file = fileLoc.getFilename().str();
      line = fileLoc.getLine();
      column = fileLoc.getColumn();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  auto nodes = fuse::nodeNamesOf(loc);
  std::string out = file.empty() ? "<unknown>" : file;
  if (line)
    out += ":" + std::to_string(line) + ":" + std::to_string(column);
  if (!nodes.empty()) {
    out += nodes.size() == 1 ? ": node '" : ": nodes '";
    for (size_t i = 0; i < nodes.size(); ++i)
      out += (i ? "', '" : "") + nodes[i];
    out += "'";
  }
  return out;
}

} // namespace

std::string formatDiagnostic(Diagnostic &diagnostic) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << formatLocation(diagnostic.getLocation()) << ": " << severityName(diagnostic.getSeverity()) << ": "
     << diagnostic.str();
  for (Diagnostic &note : diagnostic.getNotes())
    os << "\n" << formatDiagnostic(note);
  return os.str();
}

FusecDiagnosticHandler::FusecDiagnosticHandler(MLIRContext *context)
    : ScopedDiagnosticHandler(context, [](Diagnostic &diagnostic) {
        llvm::errs() << formatDiagnostic(diagnostic) << "\n";
        return success();
      }) {}

DiagnosticCollector::DiagnosticCollector(MLIRContext *context)
    : ScopedDiagnosticHandler(context, [this](Diagnostic &diagnostic) {
        text_ += formatDiagnostic(diagnostic) + "\n";
        return success();
      }) {}

} // namespace fusec

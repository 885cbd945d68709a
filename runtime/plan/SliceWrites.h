//===- SliceWrites.h - Which slices of a root buffer kernels wrote -*- C++ -*-===//
//
// A view buffer's bytes are a slice of its root's (BufferDesc::View): the
// kernels that compute a concatenation's operands write its result between
// them; an alias's are all of them (a reshape in place). The verifier follows those writes in kernel order: a view or
// root may be read once every element of it has been written, and no element is written twice (two views that overlap
// are never both computed).
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_PLAN_SLICEWRITES_H
#define FUSEC_RUNTIME_PLAN_SLICEWRITES_H

#include "runtime/plan/Plan.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fusec::runtime {

class SliceWrites {
public:
  /// Checks that the views of each root share one axis; `fail` reports (and
  /// throws).
  SliceWrites(const std::vector<BufferDesc> &buffers, std::function<void(const std::string &)> fail);

  /// Records that a kernel (`what`) wrote `buffer`; fails when part of it
  /// was written before. Buffers with no views do nothing.
  void write(const BufferDesc &buffer, const std::string &what);
  /// Whether every element of `buffer` (a view, or a root of views) has been
  /// written; false for buffers with no views.
  bool covered(const BufferDesc &buffer) const;
  /// Whether `buffer` is a view or a root of views.
  bool tracks(const BufferDesc &buffer) const { return sliceOf(buffer).has_value(); }

private:
  /// The root and the [begin, end) along the root's axis that `buffer`
  /// covers, or none for a buffer without views.
  std::optional<std::pair<size_t, std::pair<int64_t, int64_t>>> sliceOf(const BufferDesc &buffer) const;
  /// The slice that is all of `root`: its views' axis, or one piece for a
  /// root with aliases only.
  std::pair<int64_t, int64_t> wholeOf(size_t root) const;

  const std::vector<BufferDesc> &buffers_;
  std::function<void(const std::string &)> fail_;
  /// The buffers with views or aliases; each root's views' axis, and the
  /// slices written so far, sorted.
  std::set<size_t> roots_;
  std::map<size_t, int64_t> axisOfRoot_;
  std::map<size_t, std::vector<std::pair<int64_t, int64_t>>> written_;
};

} // namespace fusec::runtime

#endif // FUSEC_RUNTIME_PLAN_SLICEWRITES_H

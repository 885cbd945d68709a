//===- SliceWrites.cpp - Which slices of a root buffer kernels wrote -------===//

#include "runtime/plan/SliceWrites.h"

#include <algorithm>

namespace fusec::runtime {

SliceWrites::SliceWrites(const std::vector<BufferDesc> &buffers, std::function<void(const std::string &)> fail)
    : buffers_(buffers), fail_(std::move(fail)) {
  for (const BufferDesc &buffer : buffers_) {
    if (!buffer.view)
      continue;
    roots_.insert(buffer.view->of);
    if (buffer.view->alias)
      continue;
    auto [it, inserted] = axisOfRoot_.emplace(buffer.view->of, buffer.view->axis);
    if (!inserted && it->second != buffer.view->axis)
      fail_("views of buffer " + std::to_string(buffer.view->of) + " '" + buffers_[buffer.view->of].name +
            "' slice it along axes " + std::to_string(it->second) + " and " + std::to_string(buffer.view->axis) +
            " ('" + buffer.name + "'); a root's views share one axis");
  }
}

std::pair<int64_t, int64_t> SliceWrites::wholeOf(size_t root) const {
  auto axis = axisOfRoot_.find(root);
  if (axis == axisOfRoot_.end()) // aliases only: the root is one piece
    return {0, 1};
  return {0, buffers_[root].shape[axis->second]};
}

std::optional<std::pair<size_t, std::pair<int64_t, int64_t>>> SliceWrites::sliceOf(const BufferDesc &buffer) const {
  if (buffer.view && buffer.view->alias)
    return std::make_pair(buffer.view->of, wholeOf(buffer.view->of));
  if (buffer.view) {
    const int64_t begin = buffer.view->offset;
    return std::make_pair(buffer.view->of, std::make_pair(begin, begin + buffer.shape[buffer.view->axis]));
  }
  if (!roots_.count(buffer.id))
    return std::nullopt;
  return std::make_pair(buffer.id, wholeOf(buffer.id));
}

void SliceWrites::write(const BufferDesc &buffer, const std::string &what) {
  auto slice = sliceOf(buffer);
  if (!slice)
    return;
  auto &written = written_[slice->first];
  const auto [begin, end] = slice->second;
  for (const auto &[b, e] : written)
    if (b < end && begin < e)
      fail_(what + " writes elements " + std::to_string(begin) + ".." + std::to_string(end) + " of buffer " +
            std::to_string(slice->first) + " '" + buffers_[slice->first].name + "', of which " + std::to_string(b) +
            ".." + std::to_string(e) + " were written before");
  written.insert(std::upper_bound(written.begin(), written.end(), slice->second), slice->second);
}

bool SliceWrites::covered(const BufferDesc &buffer) const {
  auto slice = sliceOf(buffer);
  if (!slice)
    return false;
  auto it = written_.find(slice->first);
  if (it == written_.end())
    return false;
  int64_t reached = slice->second.first;
  for (const auto &[b, e] : it->second) {
    if (b > reached)
      break;
    reached = std::max(reached, e);
  }
  return reached >= slice->second.second;
}

} // namespace fusec::runtime

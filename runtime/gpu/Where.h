//===- Where.h - A lazily built description of the work a call does ---------===//
//
// Driver calls on the hot path (a launch per kernel, copies per input row)
// take the text that names their work in an error, "for kernel 'conv1'
// (bucket 4, graph)", but need it only when they fail. A Where refers to a
// string, or to a callable that builds one, without copying or allocating:
// like llvm::function_ref, it must not outlive what it refers to, so it is
// passed as a parameter and never stored.
//
//===----------------------------------------------------------------------===//
#ifndef FUSEC_RUNTIME_GPU_WHERE_H
#define FUSEC_RUNTIME_GPU_WHERE_H

#include <string>
#include <type_traits>

namespace fusec::runtime::gpu {

class Where {
public:
  Where(const char *text) // NOLINT(google-explicit-constructor): a text is a Where
      : object_(text), describe_([](const void *object) { return std::string(static_cast<const char *>(object)); }) {}
  Where(const std::string &text) // NOLINT(google-explicit-constructor)
      : object_(&text), describe_([](const void *object) { return *static_cast<const std::string *>(object); }) {}
  /// From a callable returning the text, called only by str().
  template <typename Describe, typename = std::enable_if_t<!std::is_convertible_v<const Describe &, const char *> &&
                                                           !std::is_same_v<std::decay_t<Describe>, std::string> &&
                                                           !std::is_same_v<std::decay_t<Describe>, Where> &&
                                                           std::is_invocable_r_v<std::string, const Describe &>>>
  Where(const Describe &describe) // NOLINT(google-explicit-constructor)
      : object_(&describe),
        describe_([](const void *object) { return std::string((*static_cast<const Describe *>(object))()); }) {}

  std::string str() const { return describe_(object_); }

private:
  const void *object_;
  std::string (*describe_)(const void *object);
};

} // namespace fusec::runtime::gpu

#endif // FUSEC_RUNTIME_GPU_WHERE_H

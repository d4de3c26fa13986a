#include "engine/dir_lister.h"

#include <filesystem>

namespace paddock {
namespace {

namespace fs = std::filesystem;

class PortableLister final : public DirectoryLister {
 public:
  std::error_code list(const std::string& dir, Visitor& visitor) const override {
    std::error_code ec;
    if (fs::is_symlink(fs::symlink_status(dir, ec))) return std::make_error_code(std::errc::not_a_directory);
    fs::directory_iterator it(dir, ec);
    if (ec) return ec;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) return ec;
      const fs::directory_entry& e = *it;
      std::error_code e2;
      EntryKind kind = EntryKind::kOther;
      if (e.is_symlink(e2)) kind = EntryKind::kSymlink;
      else if (e.is_directory(e2)) kind = EntryKind::kDirectory;
      else if (e.is_socket(e2)) kind = EntryKind::kSocket;
      const auto& native = e.path().native();
      const auto slash = native.rfind('/');
      if (!visitor.entry(std::string_view(native).substr(slash == std::string::npos ? 0 : slash + 1), kind)) break;
    }
    return ec;
  }
};

}  // namespace

const DirectoryLister& portable_lister() {
  static const PortableLister lister;
  return lister;
}

}  // namespace paddock

namespace paddock {

HidingLister::HidingLister(const DirectoryLister& inner, const std::vector<std::string>& hidden)
    : inner_(inner), hidden_(hidden.begin(), hidden.end()) {
  for (const auto& p : hidden_) names_.insert(p.substr(p.rfind('/') + 1));
}

std::error_code HidingLister::list(const std::string& dir, Visitor& visitor) const {
  struct Filter final : Visitor {
    const HidingLister& self;
    const std::string& dir;
    Visitor& next;
    Filter(const HidingLister& s, const std::string& d, Visitor& n) : self(s), dir(d), next(n) {}
    bool entry(std::string_view name, EntryKind kind) override {
      if (self.names_.count(std::string(name)) &&
          self.hidden_.count(dir + (dir.size() > 0 && dir.back() == '/' ? "" : "/") + std::string(name)))
        return true;
      return next.entry(name, kind);
    }
  } filter(*this, dir, visitor);
  return inner_.list(dir, filter);
}

}  // namespace paddock

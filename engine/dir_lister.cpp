#include "engine/dir_lister.h"

#include <filesystem>
#include <fstream>

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

Result<std::optional<std::string>> DirectoryLister::read_regular(const std::string& path, std::size_t max, bool prefix,
                                                                 bool follow) const {
  std::error_code ec;
  const auto st = follow ? fs::status(path, ec) : fs::symlink_status(path, ec);
  if (st.type() == fs::file_type::not_found) return std::optional<std::string>();
  if (ec) return bad_input("cannot read " + path + ": " + ec.message());
  if (st.type() == fs::file_type::symlink) return bad_input("cannot read " + path + ": it is a symlink");
  if (st.type() != fs::file_type::regular) return bad_input("cannot read " + path + ": not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return bad_input("cannot read " + path);
  std::string text(max + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max) {
    if (!prefix) return bad_input("cannot read " + path + ": more than " + std::to_string(max) + " bytes");
    text.resize(max);
  }
  return std::optional<std::string>(std::move(text));
}

Result<std::optional<std::string>> read_regular(const DirectoryLister* lister, const std::string& path, std::size_t max,
                                                bool prefix, bool follow) {
  return (lister ? *lister : portable_lister()).read_regular(path, max, prefix, follow);
}

const DirectoryLister& portable_lister() {
  static const PortableLister lister;
  return lister;
}

Result<std::optional<std::string>> HidingLister::read_regular(const std::string& path, std::size_t max, bool prefix,
                                                             bool follow) const {
  if (hidden_.count(path)) return std::optional<std::string>();
  return inner_.read_regular(path, max, prefix, follow);
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

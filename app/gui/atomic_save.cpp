#include "atomic_save.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <QDir>
#include <QFileInfo>

namespace paddock::gui {
namespace {

QString errno_text() { return QString::fromLocal8Bit(std::strerror(errno)); }

}  // namespace

QString save_file_atomically(const QString& path, const QByteArray& bytes) {
  const QFileInfo info(path);
  const QString dir = info.absolutePath();
  if (!QDir().mkpath(dir)) return QObject::tr("cannot create %1").arg(dir);
  if (info.isSymLink()) return QObject::tr("%1 is a symlink; Paddock does not write through symlinks").arg(path);
  QByteArray tmpl = QFile::encodeName(dir + "/." + info.fileName() + ".XXXXXX");
  const int fd = ::mkstemp(tmpl.data());
  if (fd < 0) return QObject::tr("cannot create a temp file in %1: %2").arg(dir, errno_text());
  const QString tmp = QFile::decodeName(tmpl);
  auto fail = [&](const QString& what) {
    const QString msg = what + ": " + errno_text();
    ::close(fd);
    ::unlink(tmpl.constData());
    return msg;
  };
  // Keep the target's mode (policy files are usually 0644; mkstemp makes 0600).
  struct stat st {};
  if (::stat(QFile::encodeName(path).constData(), &st) == 0) ::fchmod(fd, st.st_mode & 07777);
  else ::fchmod(fd, 0644);
  const char* p = bytes.constData();
  qsizetype left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, static_cast<size_t>(left));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(QObject::tr("cannot write %1").arg(tmp));
    p += n;
    left -= n;
  }
  if (::fsync(fd) != 0) return fail(QObject::tr("cannot fsync %1").arg(tmp));
  if (::close(fd) != 0) {
    ::unlink(tmpl.constData());
    return QObject::tr("cannot close %1: %2").arg(tmp, errno_text());
  }
  if (::rename(tmpl.constData(), QFile::encodeName(path).constData()) != 0) {
    const QString msg = QObject::tr("cannot replace %1: %2").arg(path, errno_text());
    ::unlink(tmpl.constData());
    return msg;
  }
  // The rename itself must reach the disk too.
  const int dfd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return {};
}

}  // namespace paddock::gui

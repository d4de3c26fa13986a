// Saves that never leave a half-written or missing policy file: write a temp file in the same
// directory, fsync it, rename it over the target, fsync the directory.
#pragma once

#include <QByteArray>
#include <QString>

namespace paddock::gui {

// Returns "" on success, else one line saying what failed and where.
QString save_file_atomically(const QString& path, const QByteArray& bytes);

}  // namespace paddock::gui

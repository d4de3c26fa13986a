// The load state every model exposes, so QML shows empty / loading / error placeholders from the
// model's own word instead of guessing from a row count.
#pragma once

#include <QObject>
#include <QtQml/qqmlregistration.h>

namespace paddock::gui {
namespace ModelStatus {
Q_NAMESPACE
QML_ELEMENT
enum Value { None, Loading, Ready, Error };
Q_ENUM_NS(Value)
}  // namespace ModelStatus
}  // namespace paddock::gui

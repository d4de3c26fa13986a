// A file-system path: monospace, selectable, elided in the middle when long.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

TextField {
    Layout.fillWidth: true
    readOnly: true
    selectByMouse: true
    font.family: "monospace"
    background: null
    leftPadding: 0
}

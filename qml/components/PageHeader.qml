// Title and one-line explanation at the top of every page.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

ColumnLayout {
    property string title
    property string subtitle
    spacing: 2
    Label {
        text: parent.title
        font.pixelSize: 22
        font.bold: true
    }
    Label {
        Layout.fillWidth: true
        text: parent.subtitle
        wrapMode: Text.Wrap
        opacity: 0.75
        visible: text.length > 0
    }
}

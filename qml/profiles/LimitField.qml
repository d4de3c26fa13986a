// One limit: committed to the YAML when editing finishes; empty removes it.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

RowLayout {
    id: row
    required property LayerDocument document
    required property string key
    required property string label
    required property string hint

    Label {
        text: row.label
        Layout.preferredWidth: 90
    }
    TextField {
        id: field
        objectName: "limit_" + row.key
        Layout.fillWidth: true
        placeholderText: row.hint
        text: row.document.revision >= 0 ? row.document.scalar("limits", row.key) : ""
        onEditingFinished: {
            if (text !== row.document.scalar("limits", row.key))
                row.document.setScalar("limits", row.key, text)
        }
    }
}

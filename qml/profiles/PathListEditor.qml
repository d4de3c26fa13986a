// A list under `section.key` with add / remove, and a folder picker for paths. Folders inside
// the project are written as $PROJECT/... so the layer stays valid in another checkout.
import QtQuick
import QtQuick.Controls
import QtQuick.Dialogs
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: editor
    required property LayerDocument document
    required property string project
    required property string section
    required property string key
    required property string title
    property bool pickFolders: false
    property string placeholder: "$PROJECT/build"
    readonly property var items: document.revision >= 0 ? document.list(section, key) : []
    spacing: 2

    function add(value) {
        if (editor.document.addItem(editor.section, editor.key, value))
            input.text = ""
    }
    function projectRelative(path) {
        if (path === editor.project)
            return "$PROJECT"
        if (path.indexOf(editor.project + "/") === 0)
            return "$PROJECT" + path.substring(editor.project.length)
        return path
    }

    FolderDialog {
        id: picker
        title: editor.title
        onAccepted: editor.add(editor.projectRelative(decodeURIComponent(selectedFolder.toString().replace(/^file:\/\//, ""))))
    }

    Label {
        text: editor.title
        font.bold: true
    }
    Repeater {
        model: editor.items
        delegate: RowLayout {
            id: itemRow
            required property int index
            required property string modelData
            Layout.fillWidth: true
            Label {
                Layout.fillWidth: true
                text: itemRow.modelData
                font.family: "monospace"
                elide: Text.ElideMiddle
            }
            ToolButton {
                objectName: "remove_" + editor.key + "_" + itemRow.index
                text: "✕"
                onClicked: editor.document.removeItem(editor.section, editor.key, itemRow.index)
                ToolTip.visible: hovered
                ToolTip.text: qsTr("Remove")
            }
        }
    }
    RowLayout {
        Layout.fillWidth: true
        TextField {
            id: input
            objectName: "input_" + editor.key
            Layout.fillWidth: true
            placeholderText: editor.placeholder
            onAccepted: editor.add(text)
        }
        Button {
            text: qsTr("Add")
            enabled: input.text.trim().length > 0
            onClicked: editor.add(input.text)
        }
        Button {
            visible: editor.pickFolders
            text: qsTr("Browse…")
            onClicked: picker.open()
        }
    }
}

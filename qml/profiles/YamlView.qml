// The layer's YAML text. Every keystroke goes to the document (the composer re-evaluates after a
// short pause); an error's line is highlighted.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ScrollView {
    id: view
    required property LayerDocument document
    property int errorLine: 0
    property int errorColumn: 0

    function offsetOfLine(line) {
        const t = area.text
        let pos = 0
        for (let l = 1; l < line && pos >= 0; ++l) {
            pos = t.indexOf("\n", pos)
            if (pos < 0)
                return t.length
            pos += 1
        }
        return pos
    }

    TextArea {
        id: area
        objectName: "yamlText"
        text: view.document.text
        font.family: "monospace"
        wrapMode: TextEdit.NoWrap
        selectByMouse: true
        persistentSelection: true
        onTextChanged: {
            if (text !== view.document.text)
                view.document.text = text
        }

        Rectangle {
            visible: view.errorLine > 0
            x: 0
            width: area.width
            y: area.positionToRectangle(view.offsetOfLine(view.errorLine)).y
            height: area.positionToRectangle(view.offsetOfLine(view.errorLine)).height
            color: Qt.rgba(0.78, 0.16, 0.16, 0.15)
            z: -1
        }
    }

    // Form edits and undo replace the text; keep the cursor where it was.
    Connections {
        target: view.document
        function onTextChanged() {
            if (area.text === view.document.text)
                return
            const pos = area.cursorPosition
            area.text = view.document.text
            area.cursorPosition = Math.min(pos, area.length)
        }
    }
}

// One session: id, state, command and the IR hash it was attested with. Click to see its log.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: row
    required property string sessionId
    required property string state
    required property string command
    required property string irHash
    required property string started
    required property string problem
    required property bool attention
    required property string dir
    property bool selected: false
    signal clicked()

    background: Rectangle {
        color: row.selected ? Qt.rgba(palette.highlight.r, palette.highlight.g, palette.highlight.b, 0.18) : "transparent"
        border.color: row.selected ? palette.highlight : palette.mid
        radius: 4
    }
    TapHandler {
        onTapped: row.clicked()
    }

    RowLayout {
        anchors.fill: parent
        spacing: 12
        Rectangle {
            Layout.preferredWidth: 76
            Layout.preferredHeight: 22
            radius: 11
            color: row.state === "running" ? "#1e88e5" : row.attention ? "#f57c00" : "#607d8b"
            Label {
                anchors.centerIn: parent
                text: row.state
                color: "white"
                font.pixelSize: 12
            }
        }
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Label {
                Layout.fillWidth: true
                text: row.command.length > 0 ? row.command : qsTr("(command not recorded)")
                font.family: "monospace"
                elide: Text.ElideRight
            }
            Label {
                Layout.fillWidth: true
                text: row.sessionId + (row.started.length > 0 ? "  ·  " + row.started : "")
                      + (row.irHash.length > 0 ? "  ·  " + row.irHash : "")
                      + (row.problem.length > 0 ? "  ·  " + row.problem : "")
                opacity: 0.7
                font.pixelSize: 12
                elide: Text.ElideMiddle
            }
        }
    }
}

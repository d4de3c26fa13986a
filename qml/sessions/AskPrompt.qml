// One pending ask: a sandboxed agent wants a domain the policy does not list. The connection
// waits until it is answered here, or is denied when the countdown ends.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts

Frame {
    id: prompt
    required property string sessionId
    required property string askId
    required property string host
    required property int port
    required property var raised
    required property int timeoutSecs
    signal answered(string decision)
    signal addToTierRequested()

    property int secondsLeft: timeoutSecs
    Timer {
        interval: 500
        repeat: true
        running: true
        triggeredOnStart: true
        onTriggered: prompt.secondsLeft = Math.max(0, prompt.timeoutSecs
                                                   - Math.floor((Date.now() - prompt.raised) / 1000))
    }

    background: Rectangle {
        color: palette.base
        border.color: "#f57c00"
        border.width: 2
        radius: 6
    }

    RowLayout {
        anchors.fill: parent
        spacing: 12
        ColumnLayout {
            Layout.fillWidth: true
            spacing: 2
            Label {
                Layout.fillWidth: true
                text: qsTr("The agent asks to connect to <b>%1:%2</b>").arg(prompt.host).arg(prompt.port)
                textFormat: Text.StyledText
                elide: Text.ElideRight
            }
            Label {
                Layout.fillWidth: true
                text: qsTr("Session %1 · denied automatically in %2 s").arg(prompt.sessionId).arg(prompt.secondsLeft)
                opacity: 0.7
                font.pixelSize: 12
                elide: Text.ElideMiddle
            }
        }
        Button {
            objectName: "allowOnce"
            text: qsTr("Allow once")
            onClicked: prompt.answered("allow_once")
        }
        Button {
            objectName: "allowSession"
            text: qsTr("Allow for this session")
            onClicked: prompt.answered("allow_session")
        }
        Button {
            objectName: "addToTier"
            text: qsTr("Always allow…")
            onClicked: prompt.addToTierRequested()
            ToolTip.visible: hovered
            ToolTip.text: qsTr("Add the domain to a policy file (you review the change first), and allow it now")
        }
        Button {
            objectName: "deny"
            text: qsTr("Deny")
            highlighted: true
            onClicked: prompt.answered("deny")
        }
    }
}

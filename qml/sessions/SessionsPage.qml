// Sessions started from the GUI or the CLI: the asks waiting for an answer on top, the list of
// sessions on the left, the selected session's live log on the right.
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

Pane {
    id: page
    required property SessionsModel model
    required property AskInbox inbox
    property string selectedDir: ""
    padding: 20

    // Nothing chosen yet: show the newest session, so a live one is one click from the tray.
    function selectNewest() {
        if (page.selectedDir.length === 0 && page.model.count > 0) page.selectedDir = page.model.dirAt(0)
    }
    Connections {
        target: page.model
        function onCountChanged() { page.selectNewest() }
    }
    Component.onCompleted: selectNewest()

    ColumnLayout {
        anchors.fill: parent
        spacing: 12

        RowLayout {
            Layout.fillWidth: true
            PageHeader {
                Layout.fillWidth: true
                title: qsTr("Sessions")
                subtitle: qsTr("Every sandboxed run, from this app or from 'paddock run'. Stored in %1")
                          .arg(AppPaths.sessionsDir)
            }
            Button {
                text: qsTr("Refresh")
                onClicked: page.model.reload()
            }
        }

        Repeater {
            objectName: "askPrompts"
            model: page.inbox
            delegate: AskPrompt {
                required property int index
                Layout.fillWidth: true
                onAnswered: (decision) => page.inbox.answer(index, decision)
            }
        }

        StatusPlaceholder {
            objectName: "sessionsPlaceholder"
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: page.model.count === 0 || active
            status: page.model.status
            errorString: page.model.errorString
            empty: page.model.count === 0
            emptyText: qsTr("No sessions yet. Launch an agent from Profiles, or run\n"
                            + "paddock run --project DIR -- COMMAND")
        }

        SplitView {
            Layout.fillWidth: true
            Layout.fillHeight: true
            visible: page.model.count > 0

            ListView {
                id: list
                objectName: "sessionsList"
                SplitView.preferredWidth: 460
                SplitView.minimumWidth: 280
                clip: true
                spacing: 6
                model: page.model
                delegate: SessionRow {
                    width: list.width
                    selected: dir === page.selectedDir
                    onClicked: page.selectedDir = dir
                }
            }

            SessionDetail {
                objectName: "sessionDetail"
                SplitView.fillWidth: true
                SplitView.minimumWidth: 360
                leftPadding: 12
                sessionDir: page.selectedDir
                visible: page.selectedDir.length > 0
            }
        }
    }
}

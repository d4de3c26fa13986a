// Why: a path, domain or env var -> the decision, the deciding tier, file and rule
// (the same answer as `paddock explain --why`).
import QtQuick
import QtQuick.Controls
import QtQuick.Layouts
import Paddock

ColumnLayout {
    id: view
    required property PolicyComposer composer
    property var answer: ({})

    function ask() {
        answer = composer.why(query.text)
    }
    Connections {
        target: view.composer
        function onEvaluated() {
            if (query.text.length > 0)
                view.ask()
        }
    }

    TextField {
        id: query
        objectName: "whyQuery"
        Layout.fillWidth: true
        placeholderText: qsTr("A path (~/.ssh/id_rsa), a domain (github.com) or an env var (AWS_SECRET_ACCESS_KEY)")
        onTextChanged: view.ask()
    }
    Label {
        Layout.fillWidth: true
        visible: view.answer.error !== undefined
        text: view.answer.error !== undefined ? view.answer.error : ""
        color: "#c62828"
        wrapMode: Text.Wrap
    }
    GridLayout {
        Layout.fillWidth: true
        visible: view.answer.subject !== undefined
        columns: 2
        Label { text: qsTr("Decision"); opacity: 0.7 }
        Label {
            objectName: "whyDecision"
            text: view.answer.subject === undefined ? ""
                  : (view.answer.allowed ? qsTr("allowed") : qsTr("denied"))
                    + (view.answer.access && view.answer.kind === "path" ? " (" + view.answer.access + ")" : "")
            color: view.answer.allowed ? "#2e7d32" : "#c62828"
            font.bold: true
        }
        Label { text: qsTr("Subject"); opacity: 0.7 }
        Label { text: view.answer.subject || ""; font.family: "monospace"; Layout.fillWidth: true; elide: Text.ElideMiddle }
        Label { text: qsTr("Tier"); opacity: 0.7 }
        Label { text: view.answer.tier || qsTr("(default)") }
        Label { text: qsTr("File"); opacity: 0.7 }
        Label { text: view.answer.file || "—"; font.family: "monospace"; Layout.fillWidth: true; elide: Text.ElideMiddle }
        Label { text: qsTr("Rule"); opacity: 0.7 }
        Label { text: view.answer.rule || "—"; font.family: "monospace"; Layout.fillWidth: true; wrapMode: Text.Wrap }
        Label { text: qsTr("Why"); opacity: 0.7 }
        Label { text: view.answer.reason || ""; Layout.fillWidth: true; wrapMode: Text.Wrap }
    }
    Item { Layout.fillHeight: true }
}

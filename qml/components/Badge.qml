// A small coloured label.
import QtQuick
import QtQuick.Controls

Label {
    id: badge
    property color tint: "#607d8b"
    color: "white"
    font.pixelSize: 11
    leftPadding: 6
    rightPadding: 6
    topPadding: 2
    bottomPadding: 2
    background: Rectangle {
        radius: 8
        color: badge.tint
    }
}

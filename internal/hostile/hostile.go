// Package hostile holds inputs a hostile user sends, for the tests of the packages that must
// refuse them; each is written here once, as text, rather than kept as a file beside a test.
package hostile

// QMSBomb is a .qms source of 154 bytes whose two nested #for loops ask for 300×1000 sites, each
// with a text and a jump: without a budget its compilation takes hours and hundreds of
// megabytes. Its third line declares the sites.
const QMSBomb = `#for:i:1..300
#for:j:1..1000
#site:r[$i]_[$j] #default
A room of the maze, number [$i] [$j], under a hill.
#case:r[$i]_[$j] 'Stay in this room'
#end
#end
`

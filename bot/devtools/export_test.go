package devtools

// The save and source formats under exported names, for the tests of package devtools_test.

type (
	QMS      = qmsFile
	QMSParam = qmsParam
)

const SaveFormat = saveFormat

var (
	EncodeQMS = encodeQMS
	ParseSave = parseSave
)

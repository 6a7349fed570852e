package questplay

import (
	"github.com/questbot/questbot/bot/texts"
	"github.com/questbot/questbot/quest"
	"github.com/questbot/questbot/quest/questfs"
)

// dropDefaultTexts replaces in v a task or congratulation its author left at the quest editor's
// default («Описание задания», «Описание поздравления»: questfs.IsEditorDefault), which is no
// text for players: the task becomes the quest's name, the congratulation words that the player
// won. Golden traces keep the reference's texts; this is how the bot shows them.
func dropDefaultTexts(v *quest.View, phase quest.Phase, gm *game) {
	if !questfs.IsEditorDefault(v.Text) {
		return
	}
	switch phase {
	case quest.PhaseStarting:
		v.Text = "<clr>" + gm.Script.Name + "<clrEnd>"
	case quest.PhaseReturnedEnding:
		v.Text = texts.For(gm.Script.Lang).Quest.Completed
	}
}

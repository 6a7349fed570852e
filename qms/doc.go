// Package qms compiles quest sources written in the original Telegram bot's authoring language
// (.qms) into quests (package qmm), and writes any quest back as source.
//
// The package is pure: compile reads the source and its includes only through the fs.FS it is
// given, [CompileSource] compiles one text, [Decompile] returns the source of a quest. Nothing is
// logged and no state is kept between calls.
//
// # The language
//
// A source is read line by line; "//" and what follows it is a comment. #include:name inserts
// the file name (or name.qms) of the same folder. Directives start a line with #name or
// #name:argument, followed by options (#option, #option:value, 'text', {formula}).
//
//   - #intro and #congratulation start the quest's task and success texts.
//   - #var:NAME declares a parameter: #range:MIN..MAX (default 0..1), #default:VALUE (a formula,
//     default 0), #order:N (parameters with an order are numbered first, in that order; the others
//     when a formula or text first names them), #money, #zero, #show and #hide (shown or hidden
//     at the start). #text:FROM..TO 'text' lines give its display texts ($ is the value), and
//     #message:+N (the minimum is critical) or #message:-N (the maximum) with #win, #lose or
//     #death:'text' its critical value; the text may also be given by the lines below it.
//   - #site:NAME is a location: #default (the start), #win, #lose, #death, #day, #image:file,
//     {formula} (chooses the page shown), #show:a;b and #hide:a;b. Its lines are its text; #page:N
//     [#image:file] starts its N-th text; $name = formula lines are parameter changes.
//   - #case:SITE 'text' {condition} is a choice of the site above it, with #order:N, #priority:N,
//     #day, #count:N, #show and #hide; its lines are the text shown after it, its $name = formula
//     lines its changes.
//   - Sub-routines: a site marked #return ends a sub-routine; #case:SUB #return:BACK calls the
//     sub-routine at SUB, which comes back to BACK. The compiler keeps the return addresses in a
//     hidden parameter (the first one, RRR) as base-256 digits: the call multiplies it by 256 and
//     adds BACK's id, and every #return site the sub-routine reaches gets a case to BACK taken
//     when the last digit is BACK's id, which drops that digit.
//   - Texts: $name is the value, @name the value's display text, {formula} a computed value,
//     *bold*, ^fixed^, \* a star, and with #compatible:off ~spoiler~. In formulas <a..b> is the
//     random range [a..b].
//   - Macros: #macro:NAME:P1:P2 … #end defines #NAME:a1:a2, whose lines are read again with
//     [expr] replaced: $P in it is the argument (or a #global:NAME:VALUE constant) and an [expr]
//     holding an operator or a space is computed. #end:C also makes the global C a counter that
//     each call of the macro increments. #for:i:RANGES … [#else …] #end repeats its lines for
//     each value of i (RANGES is a ;-list of values, FROM..TO of numbers or of single
//     characters); #if:condition … [#else …] #end keeps its lines when the condition is not 0.
//     Blocks nest; includes and macro calls nest at most maxDepth deep, and a cycle of
//     includes is an error naming the chain.
//   - #position:SITE:X:Y places a site in the editor; sites without one are laid out
//     automatically on a grid of 25 columns, row after row, turning back at each end.
//   - #compatible:on (the default), off (spoilers; locations stay "empty" unless a case into them
//     has a text) or debug (a location without text shows its name).
//
// The compiled quest is what the original compiler and writer produce: a QMM 7 quest with
// their header (races, sizes, "Описание задания" when there is no #intro…), the locations in
// the order of a breadth-first walk from the starting sites (a site no start reaches is left
// out), the jumps numbered in source order, priority 1 and order 5 unless given.
//
// # Bounded work
//
// No source makes a compilation long or large, however few its bytes (two nested #for loops in
// 154 bytes ask for 300,000 sites). Every compilation has [Limits]: sites, jumps, variables,
// steps of work (lines read and handled, loop turns, the walks that build the quest) and bytes
// of text and of the quest built; [DefaultLimits] are 10,000 sites, 50,000 jumps, 1,000
// variables, 2,000,000 steps and 64 MB, far beyond the largest quests written, and take at
// most about two seconds of one core. A source that passes
// one stops at once with an error naming the limit, at the place where it was passed (a
// [*LimitError] wrapped by the last error of the list). [CompileContext] also stops when its
// context is done, within a few thousand steps. Each name (site, variable, constant) is found
// through a map, so that the time of a compilation grows with the size of the source, not with
// its square.
//
// # Where this compiler differs from the original
//
// The original compiler ignored whatever it did not understand, and the real sources depend on
// it (drafts use directives of later versions, texts hold stray quotes). So does this one, but
// nothing is dropped silently: [CompileWithWarnings] reports each ignored construct with its
// place. Errors, which stop the compilation, are what makes a quest impossible to build: a
// block not closed, a bad #for range, an include missing or in a cycle, nesting too deep, a
// directive out of its place (#case outside a #site…), a malformed extension directive. Every
// error of a source is reported, up to maxErrors. Where the original was wrong, this compiler
// does what the language means:
//
//   - #hide on a #var line hides the parameter at the start (the original ignored it) and #show
//     only shows it (the original set both flags).
//   - #if keeps its lines once when the condition is not 0, with blocks nested in it (the
//     original counted neither, so an #if swallowed the rest of the source). An [expr] naming
//     an undefined constant counts as 0 in #for ranges and #if conditions, so that
//     "#for:i:1..[$debug]" does nothing without #global:debug.
//   - #for:a;b:RANGE1:RANGE2 gives each variable its own list, in step (the original gave values
//     to the first only); with a single list, its ;-parts go to the variables in turn.
//   - A macro call restores the arguments of the macros around it (the original dropped them).
//   - Markup is applied outside {formulas} only, \* is a star without turning every & of the
//     text into one, and an unknown $name or @name in a text is left as written.
//   - A text macro (#name:args inside a text) expands for any macro made only of text lines.
//   - Quoted texts and {formulas} are found outside each other: a ' or # inside a case's text
//     does not cut it or set an option.
//   - A source without #default starts at its first site (the original made an empty quest),
//     and a #default that is not a formula starts the parameter at its minimum.
//   - Every parameter is shown when zero unless #nozero, as the original's output always was.
//   - A site or case changes a parameter once: a second change of it is reported and ignored,
//     as the original ignored it.
//
// # Extension directives
//
// The original language cannot say everything a quest holds, so these directives and options
// are added; the decompiler writes them only where needed. A "…" text is a Go string literal,
// taken exactly as written (no markup).
//
//   - #exact: the source is a faithful transcription. Every site is kept, in source order, and
//     the jumps keep source order (or #seq). Its defaults are the quest editor's, so that a
//     source says only where a quest differs from them: variables are numbered in the order
//     declared, start at "[MIN]", have the minimum critical and the editor's critical message
//     ("Сообщение достижения критического значения параметром N"); a site takes the id after
//     the site before it, is "empty" (the editor's flag; #empty:off clears it) and has one
//     text, or as many as its last #page; a case takes the id after the case before it.
//     A text is its lines from the first to the last that is not blank, joined with line
//     breaks: "\n" or, after #newline:crlf, "\r\n"; after #newline:lf:end or
//     #newline:crlf:end the last line ends with one too (#newline:lf goes back). A text line
//     written \#… or \$… is the text #… or $…. Pages are kept even when empty. The case of a
//     return site back to a caller takes the place after the site's last case, and the
//     cases back of a return site are numbered after its own cases (or from #return #id:N),
//     in the order of the ids of the calls.
//   - #exact:qms: #exact with the defaults of a quest compiled from a source instead of the
//     editor's: variables start at 0 and have the maximum critical and no critical message;
//     a site is empty when it has no text (#empty and #empty:off say otherwise) and has as
//     many texts as its last #page; text lines end with "\n", the last one too.
//   - #quest:FIELD "value": header fields (magic, version, changelog, givingRace, whenDone,
//     planetRace, playerCareer, playerRace, reputation, screenX, screenY, width, height,
//     jumpLimit, hardness) and the player tags' strings (ToStar, Parsec, Artefact, ToPlanet,
//     Date, Money, FromPlanet, FromStar, Ranger).
//   - #var options: #nozero, #inactive, #title:"editor name", #image:"…", #sound:"…",
//     #track:"…"; #default:"formula"; #text:FROM..TO "literal text".
//   - #site options: #id:N, #empty:off, #visits:N (visit limit), #pages:N (number of texts),
//     {"literal formula"}; #page:N #image:"…" #sound:"…" #track:"…" sets that page's media only.
//   - #case options: #id:N, #seq:N (position in the quest's jump list), #always (shown even
//     when unavailable), #priority with decimals, "literal text", {"literal formula"},
//     #image:"…", #sound:"…", #track:"…".
//   - #cond:NAME:FROM..TO[:eq:V;V|:ne:V;V][:mod:V;V|:nmod:V;V] under a #case: a condition on a
//     parameter's range, values and divisors.
//   - Changes: $NAME:=N sets, $NAME+=N adds, $NAME%=N adds a percentage, $NAME="formula" is a
//     literal formula; #crit:NAME "text" [#image:"…"…] after a change gives the text (and media)
//     shown when that change makes the parameter critical.
//   - #raw:"text": a text given exactly (location page, case description, intro, congratulation,
//     critical message); a block with #raw lines takes its text from them alone.
//
// # Decompiling
//
// [Decompile] writes any quest in exact form and says only what differs from the defaults:
// parameters named by their editor name when it is a unique identifier (else p1…pN), with
// their ranges, texts and critical values; locations L<id> with their pages, changes and cases;
// conditions that restrict something (one that lets every value of its parameter pass is left
// out, as the player ignores it); #position lines. Each text and formula is written readably
// (body lines, $name, @name, *bold*, ^fixed^, {formula}, <a..b>) when compiling that form gives
// back exactly the same string, and literally (#raw, "…") otherwise, so that compiling the
// source gives a quest the player plays exactly as the original (the tests replay every golden
// trace of the corpus on quests decompiled and compiled again, and check that decompiling the
// result gives the same source).
//
// Sub-routines are recovered where the quest has the compiled form of #return: a stack
// parameter that calls change only by $RRR*256+BACK and cases back only read, each going to
// BACK when ($RRR mod 256)=BACK and changing only $RRR=$RRR div 256. The source then marks the
// sites the cases back leave from with #return, writes each call as #case:SUB #return:BACK and
// leaves the stack parameter (unless it differs from the one the compiler makes) and the cases
// back out. This form is kept only when it compiles to the same quest as the flat one; else the
// stack arithmetic is written as it is. Macros and loops are not recovered.
package qms

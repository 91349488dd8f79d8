package dataset

import "strings"

// corpusText is the prose token-exact prompts are cut from: passages of
// public-domain works (Lincoln, the Declaration of Independence, Austen,
// Dickens, Melville, Carroll, Doyle, Thoreau, Stevenson), lightly
// normalized to ASCII and single spaces. GenAI-Perf cuts its prompts from
// Shakespeare for the same reason: real text tokenizes like the prompts
// servers see, where random token ids do not.
var corpusText = strings.Join(strings.Fields(`
Four score and seven years ago our fathers brought forth on this continent a new nation,
conceived in liberty, and dedicated to the proposition that all men are created equal. Now we
are engaged in a great civil war, testing whether that nation, or any nation so conceived and so
dedicated, can long endure. We are met on a great battlefield of that war. We have come to
dedicate a portion of that field, as a final resting place for those who here gave their lives
that that nation might live. It is altogether fitting and proper that we should do this. But, in
a larger sense, we can not dedicate, we can not consecrate, we can not hallow this ground. The
brave men, living and dead, who struggled here, have consecrated it, far above our poor power to
add or detract. The world will little note, nor long remember what we say here, but it can never
forget what they did here. It is for us the living, rather, to be dedicated here to the
unfinished work which they who fought here have thus far so nobly advanced. It is rather for us
to be here dedicated to the great task remaining before us, that from these honored dead we take
increased devotion to that cause for which they gave the last full measure of devotion, that we
here highly resolve that these dead shall not have died in vain, that this nation, under God,
shall have a new birth of freedom, and that government of the people, by the people, for the
people, shall not perish from the earth.

When in the course of human events it becomes necessary for one people to dissolve the political
bands which have connected them with another, and to assume among the powers of the earth, the
separate and equal station to which the laws of nature and of nature's God entitle them, a decent
respect to the opinions of mankind requires that they should declare the causes which impel them
to the separation. We hold these truths to be self-evident, that all men are created equal, that
they are endowed by their Creator with certain unalienable rights, that among these are life,
liberty and the pursuit of happiness. That to secure these rights, governments are instituted
among men, deriving their just powers from the consent of the governed. Prudence, indeed, will
dictate that governments long established should not be changed for light and transient causes;
and accordingly all experience hath shown that mankind are more disposed to suffer, while evils
are sufferable, than to right themselves by abolishing the forms to which they are accustomed.

It is a truth universally acknowledged, that a single man in possession of a good fortune, must
be in want of a wife. However little known the feelings or views of such a man may be on his
first entering a neighbourhood, this truth is so well fixed in the minds of the surrounding
families, that he is considered as the rightful property of some one or other of their
daughters. My dear Mr. Bennet, said his lady to him one day, have you heard that Netherfield Park
is let at last? Mr. Bennet replied that he had not. But it is, returned she; for Mrs. Long has
just been here, and she told me all about it. Mr. Bennet made no answer. Do not you want to know
who has taken it? cried his wife impatiently. You want to tell me, and I have no objection to
hearing it. This was invitation enough. Why, my dear, you must know, Mrs. Long says that
Netherfield is taken by a young man of large fortune from the north of England; that he came down
on Monday in a chaise and four to see the place, and was so much delighted with it that he agreed
with Mr. Morris immediately; that he is to take possession before Michaelmas, and some of his
servants are to be in the house by the end of next week.

It was the best of times, it was the worst of times, it was the age of wisdom, it was the age of
foolishness, it was the epoch of belief, it was the epoch of incredulity, it was the season of
Light, it was the season of Darkness, it was the spring of hope, it was the winter of despair, we
had everything before us, we had nothing before us, we were all going direct to Heaven, we were
all going direct the other way. In short, the period was so far like the present period, that
some of its noisiest authorities insisted on its being received, for good or for evil, in the
superlative degree of comparison only. There were a king with a large jaw and a queen with a
plain face, on the throne of England; there were a king with a large jaw and a queen with a fair
face, on the throne of France. In both countries it was clearer than crystal to the lords of the
State preserves of loaves and fishes, that things in general were settled for ever.

Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in my
purse, and nothing particular to interest me on shore, I thought I would sail about a little and
see the watery part of the world. It is a way I have of driving off the spleen and regulating the
circulation. Whenever I find myself growing grim about the mouth; whenever it is a damp, drizzly
November in my soul; whenever I find myself involuntarily pausing before coffin warehouses, and
bringing up the rear of every funeral I meet; and especially whenever my hypos get such an upper
hand of me, that it requires a strong moral principle to prevent me from deliberately stepping
into the street, and methodically knocking people's hats off, then, I account it high time to get
to sea as soon as I can. This is my substitute for pistol and ball. There is nothing surprising
in this. If they but knew it, almost all men in their degree, some time or other, cherish very
nearly the same feelings towards the ocean with me. There now is your insular city of the
Manhattoes, belted round by wharves as Indian isles by coral reefs; commerce surrounds it with
her surf. Right and left, the streets take you waterward.

Alice was beginning to get very tired of sitting by her sister on the bank, and of having nothing
to do: once or twice she had peeped into the book her sister was reading, but it had no pictures
or conversations in it, and what is the use of a book, thought Alice, without pictures or
conversations? So she was considering in her own mind, as well as she could, for the hot day
made her feel very sleepy and stupid, whether the pleasure of making a daisy chain would be worth
the trouble of getting up and picking the daisies, when suddenly a White Rabbit with pink eyes ran
close by her. There was nothing so very remarkable in that; nor did Alice think it so very much
out of the way to hear the Rabbit say to itself, Oh dear! Oh dear! I shall be late! But when the
Rabbit actually took a watch out of its waistcoat pocket, and looked at it, and then hurried on,
Alice started to her feet, for it flashed across her mind that she had never before seen a rabbit
with either a waistcoat pocket, or a watch to take out of it, and burning with curiosity, she ran
across the field after it, and fortunately was just in time to see it pop down a large rabbit hole
under the hedge. In another moment down went Alice after it, never once considering how in the
world she was to get out again.

To Sherlock Holmes she is always the woman. I have seldom heard him mention her under any other
name. In his eyes she eclipses and predominates the whole of her sex. It was not that he felt any
emotion akin to love for Irene Adler. All emotions, and that one particularly, were abhorrent to
his cold, precise but admirably balanced mind. He was, I take it, the most perfect reasoning and
observing machine that the world has seen, but as a lover he would have placed himself in a false
position. He never spoke of the softer passions, save with a gibe and a sneer. They were admirable
things for the observer, excellent for drawing the veil from men's motives and actions. But for
the trained reasoner to admit such intrusions into his own delicate and finely adjusted
temperament was to introduce a distracting factor which might throw a doubt upon all his mental
results. Grit in a sensitive instrument, or a crack in one of his own high power lenses, would not
be more disturbing than a strong emotion in a nature such as his.

When I wrote the following pages, or rather the bulk of them, I lived alone, in the woods, a mile
from any neighbor, in a house which I had built myself, on the shore of Walden Pond, in Concord,
Massachusetts, and earned my living by the labor of my hands only. I lived there two years and two
months. At present I am a sojourner in civilized life again. I went to the woods because I wished
to live deliberately, to front only the essential facts of life, and see if I could not learn what
it had to teach, and not, when I came to die, discover that I had not lived. I did not wish to live
what was not life, living is so dear; nor did I wish to practise resignation, unless it was quite
necessary. I wanted to live deep and suck out all the marrow of life, to live so sturdily and
Spartan like as to put to rout all that was not life, to cut a broad swath and shave close, to
drive life into a corner, and reduce it to its lowest terms.

Squire Trelawney, Dr. Livesey, and the rest of these gentlemen having asked me to write down the
whole particulars about Treasure Island, from the beginning to the end, keeping nothing back but
the bearings of the island, and that only because there is still treasure not yet lifted, I take
up my pen in the year of grace, and go back to the time when my father kept the Admiral Benbow
inn and the brown old seaman with the sabre cut first took up his lodging under our roof. I
remember him as if it were yesterday, as he came plodding to the inn door, his sea chest following
behind him in a hand barrow; a tall, strong, heavy, nut brown man, his tarry pigtail falling over
the shoulder of his soiled blue coat, his hands ragged and scarred, with black, broken nails, and
the sabre cut across one cheek, a dirty, livid white. I remember him looking round the cove and
whistling to himself as he did so, and then breaking out in that old sea song that he sang so often
afterwards.
`), " ")

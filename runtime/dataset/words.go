package dataset

import "strings"

// wordList holds common English words that are a single token (with their
// leading space) in the Llama 3, Qwen and GPT-4o vocabularies.
var wordList = strings.Fields(`the of and to in is was for on that with as by at from his
it an were are which this be has had not but its have they first new their one two all
after who been also more time other when would into there can only during her most some
years out city school where over three may up world about such state than people about
many then made these under part film him best while year well between these back before
used team since both known through work being called life game season four war house
end series played what place later group album song music book water family old each
same high day long name line around last use until area any great small major right
number second found named five state power free black white side early local center
public set home following form several system age point around late own real light
open near north south east west king land road city field great short full body head
hand eye face word story case fact plan move page color table door room paper river
market price level model class order value issue action reason voice music money night
week month party court report policy result change rate space rule paper data test
note field board share view cost test type job club role heart sense force event focus
range stage union answer energy region period method figure member design record series`)

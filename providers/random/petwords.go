package random

// adjectives and animals are the words Pet names are made of: short,
// lower-case, friendly, one word each, no repeats.
var adjectives = []string{
	"able", "agile", "amber", "ample", "apt", "azure", "balmy", "bold", "brave", "breezy",
	"bright", "brisk", "bubbly", "calm", "candid", "cheery", "civil", "clever", "cosmic", "cozy",
	"crisp", "curious", "daring", "dapper", "deft", "eager", "earnest", "easy", "elated", "epic",
	"fair", "fancy", "fast", "fearless", "festive", "fine", "fluffy", "fond", "frank", "free",
	"fresh", "gentle", "giddy", "glad", "golden", "graceful", "grand", "happy", "hardy", "hearty",
	"honest", "humble", "jolly", "jovial", "keen", "kind", "lively", "loyal", "lucid", "lucky",
	"mellow", "merry", "mighty", "modest", "neat", "nimble", "noble", "patient", "peppy", "placid",
	"plucky", "polite", "proud", "quick", "quiet", "radiant", "rapid", "ready", "robust", "rosy",
	"rustic", "sassy", "serene", "sharp", "shiny", "silky", "sleek", "smart", "snappy", "snug",
	"spry", "steady", "sturdy", "sunny", "swift", "tidy", "trusty", "vivid", "warm", "witty",
	"zany", "zesty",
}

var animals = []string{
	"aardvark", "albatross", "alpaca", "anteater", "antelope", "armadillo", "badger", "bat", "beaver", "bison",
	"bobcat", "buffalo", "camel", "capybara", "caribou", "cat", "cheetah", "chinchilla", "cobra", "condor",
	"cougar", "coyote", "crab", "crane", "cricket", "crow", "deer", "dingo", "dolphin", "donkey",
	"dove", "duck", "eagle", "eel", "elephant", "elk", "emu", "falcon", "ferret", "finch",
	"flamingo", "fox", "frog", "gazelle", "gecko", "gerbil", "giraffe", "gnu", "goat", "goose",
	"gopher", "gorilla", "hamster", "hare", "hawk", "hedgehog", "heron", "hippo", "horse", "hyena",
	"ibex", "iguana", "impala", "jackal", "jaguar", "kangaroo", "kiwi", "koala", "lemur", "leopard",
	"lion", "llama", "lobster", "lynx", "macaw", "magpie", "marmot", "meerkat", "mink", "mole",
	"moose", "narwhal", "newt", "ocelot", "octopus", "okapi", "orca", "osprey", "otter", "owl",
	"panda", "panther", "parrot", "pelican", "penguin", "pony", "puffin", "quail", "rabbit", "raccoon",
	"raven", "reindeer", "robin", "salmon", "seal", "shark", "sloth", "sparrow", "squid", "stork",
	"swan", "tapir", "tiger", "toucan", "turtle", "walrus", "weasel", "whale", "wolf", "wombat",
	"yak", "zebra",
}

// A Pulumi Node.js SDK program for the test of an operation that goes on
// after a step fails (langhost's TestNodeProgramContinuesAfterAFailure).
"use strict";
const pulumi = require("@pulumi/pulumi");

class File extends pulumi.CustomResource {
    constructor(name, args, opts) {
        super("testfs:index:File", name, { ...args, size: undefined }, opts);
    }
}

// Its create fails: the folder does not exist.
const bad = new File("bad", { name: "no-such-folder/bad.txt", content: "bad" });
// It needs bad's output, so it is skipped.
new File("dependent", { name: "dependent.txt", content: bad.content });
// Registered only once the engine has answered bad's registration, however
// it answered.
const registerLater = () => { new File("later", { name: "later.txt", content: "later" }); };
bad.urn.promise().then(registerLater, registerLater);

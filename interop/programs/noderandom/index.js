// One resource of each of pulumi-random's types, written with @pulumi/random
// and deployed by the interop suite against groundwork's built-in random
// provider (no plugin installed): the Node.js twin of ../gorandom. The
// config key "interop:petLength" sets the pet's length (default 2).
"use strict";
const pulumi = require("@pulumi/pulumi");
const random = require("@pulumi/random");

const petLength = new pulumi.Config("interop").getNumber("petLength") || 2;
const pet = new random.RandomPet("pet", { length: petLength });
const str = new random.RandomString("string", { length: 16, special: false });
const pw = new random.RandomPassword("password", { length: 20, minSpecial: 2 });
const n = new random.RandomInteger("integer", { min: 1, max: 100, seed: "interop" });
const id = new random.RandomId("id", { byteLength: 8, prefix: "p-" });
const uuid = new random.RandomUuid("uuid");
const shuffle = new random.RandomShuffle("shuffle", { inputs: ["a", "b", "c"], resultCount: 2 });
const bytes = new random.RandomBytes("bytes", { length: 16 });

module.exports = {
    petName: pet.id,
    string: str.result,
    password: pw.result,
    integer: n.result,
    b64Url: id.b64Url,
    uuid: uuid.result,
    results: shuffle.results,
    hex: bytes.hex,
};

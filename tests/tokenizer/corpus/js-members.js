// Property names that are also the names of Object.prototype's members.
function own(obj, key) {
  return Object.prototype.hasOwnProperty.call(obj, key) && obj.propertyIsEnumerable(key);
}
const when = new Date(0).valueOf(), label = when.toLocaleString('en-US');
class Box { constructor(v) { this.v = v; } toString() { return `Box(${this.v})`; } }
console.log(Box.prototype.isPrototypeOf(new Box(1)), String(new Box(2)), label, own({ a: 1 }, 'a'));
// inside words they merge as usual: myvalueOf, xhasOwnPropertyY, toStringify

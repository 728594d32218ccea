// Redoc's side menu shows its maker's logo from cdn.redoc.ly. These docs are served offline and the
// page's Content-Security-Policy refuses images from elsewhere, so each visit logged a violation:
// an image given that address gets a blank one of its own instead, and nothing is requested.
(function () {
  "use strict";
  var OUTSIDE = "https://cdn.redoc.ly/";
  var BLANK = "data:image/gif;base64,R0lGODlhAQABAAAAACH5BAEKAAEALAAAAAABAAEAAAICTAEAOw==";
  var setAttribute = Element.prototype.setAttribute;
  Element.prototype.setAttribute = function (name, value) {
    if (this instanceof HTMLImageElement && name === "src" && String(value).indexOf(OUTSIDE) === 0) {
      value = BLANK;
    }
    return setAttribute.call(this, name, value);
  };
  var src = Object.getOwnPropertyDescriptor(HTMLImageElement.prototype, "src");
  Object.defineProperty(HTMLImageElement.prototype, "src", {
    configurable: true,
    enumerable: src.enumerable,
    get: src.get,
    set: function (value) {
      src.set.call(this, String(value).indexOf(OUTSIDE) === 0 ? BLANK : value);
    },
  });
})();

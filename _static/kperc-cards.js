/* kperc-book: tables inside a container with the class kperc-autolabel become one card
   per row on phones (see kperc.css). Each cell gets its column's header as data-label,
   which the stylesheet shows before the value, so a card reads "fastest kperc: SNKP,
   35.8 ms" without the header row. No dependencies; nothing changes on wide screens. */
(function () {
  "use strict";
  function label() {
    document.querySelectorAll(".kperc-autolabel table").forEach(function (table) {
      var heads = Array.prototype.map.call(
        table.querySelectorAll("thead th"),
        function (th) { return th.textContent.trim(); }
      );
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        Array.prototype.forEach.call(tr.children, function (td, i) {
          if (heads[i]) td.setAttribute("data-label", heads[i]);
        });
      });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", label);
  } else {
    label();
  }
})();

/* rankeval report: click (or press Enter on) a column header to sort a table; again to reverse.
   Cells sort by their data-sort value (numbers as numbers), else by their text; empty values last. */
(function () {
  "use strict";
  function key(cell) {
    var raw = cell.hasAttribute("data-sort") ? cell.getAttribute("data-sort") : cell.textContent.trim();
    if (raw === "") { return null; }
    var number = Number(raw);
    return isNaN(number) ? raw.toLowerCase() : number;
  }
  function compare(x, y) {
    if (x === y) { return 0; }
    if (x === null) { return 1; }
    if (y === null) { return -1; }
    if (typeof x === typeof y) { return x < y ? -1 : 1; }
    return typeof x === "number" ? -1 : 1;
  }
  function sortBy(table, header, column) {
    var ascending = header.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) { h.removeAttribute("aria-sort"); });
    header.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows).map(function (row, i) {
      return { row: row, key: key(row.cells[column]), i: i };
    });
    rows.sort(function (a, b) {
      if (a.key === null || b.key === null) { return compare(a.key, b.key) || a.i - b.i; }
      return (ascending ? compare(a.key, b.key) : compare(b.key, a.key)) || a.i - b.i;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (header, column) {
      header.tabIndex = 0;
      header.addEventListener("click", function () { sortBy(table, header, column); });
      header.addEventListener("keydown", function (event) {
        if (event.key === "Enter" || event.key === " ") { event.preventDefault(); sortBy(table, header, column); }
      });
    });
  });
}());

//! `stats` text against `stats --json` of the same dataset: every cell of every feature's table,
//! per split, is the JSON figure as the README says the text rounds it (four significant digits
//! by `short`, shares to a tenth of a percent, counts and int64 values whole).

use serde_json::Value;
use tfr_core::words::short;

use super::{run_in_process, stdout, testdata};

/// A share from 0 to 1 as the text gives it: a tenth of a percent, never rounded to none or all.
fn percent(share: f64) -> String {
    let tenths = (share * 1000.0).round();
    match share {
        0.0 => "0.0%".into(),
        1.0 => "100.0%".into(),
        _ if tenths < 1.0 => "<0.1%".into(),
        _ if tenths >= 1000.0 => ">99.9%".into(),
        _ => format!("{:.1}%", share * 100.0),
    }
}

/// An int64 figure whole, a float one by `short`.
fn number(v: &Value) -> String {
    match v.as_i64() {
        Some(n) if !v.is_f64() => n.to_string(),
        _ => short(v.as_f64().unwrap()),
    }
}

fn counted(n: &Value, exact: &Value) -> String {
    let approx = if exact.as_bool().unwrap() { "" } else { "~" };
    format!("{approx}{n}")
}

/// `"a" 3, "b" 2`, the first three of `top` (`≥` before counts that are lower bounds).
fn top(values: &Value, exact: &Value, name: &dyn Fn(&Value) -> String) -> String {
    let approx = if exact.as_bool().unwrap() { "" } else { "≥" };
    values.as_array().unwrap()[..]
        .iter()
        .take(3)
        .map(|v| format!("{} {approx}{}", name(v), v["count"]))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The cells the text should give for `f`, by row label.
fn expected(records: u64, f: &Value) -> Vec<(String, String)> {
    let per_record = |p: &Value| {
        format!(
            "{}..{}, mean {}",
            p["min"],
            p["max"],
            short(p["mean"].as_f64().unwrap())
        )
    };
    let mut rows = vec![
        (
            "present".to_string(),
            format!(
                "{} ({})",
                f["present"],
                percent(f["present_fraction"].as_f64().unwrap())
            ),
        ),
        ("values/record".into(), per_record(&f["values_per_record"])),
    ];
    assert!(f["present"].as_u64().unwrap() <= records);
    let n = &f["numeric"];
    if n.is_object() {
        rows.extend([
            ("min".to_string(), number(&n["min"])),
            ("max".into(), number(&n["max"])),
            ("mean".into(), short(n["mean"].as_f64().unwrap())),
            ("std".into(), short(n["std"].as_f64().unwrap())),
            (
                "zeros/NaN/inf".into(),
                format!("{}/{}/{}", n["zeros"], n["nan"], n["inf"]),
            ),
        ]);
        let q = &n["quantiles"];
        let quantiles = ["p1", "p5", "p25", "median", "p75", "p95", "p99"]
            .map(|p| short(q[p].as_f64().unwrap()))
            .join("/");
        rows.push(("p1/5/25/50/75/95/99".into(), quantiles));
        let h = &n["histogram"];
        let label = format!(
            "histogram {}..{}",
            short(h["low"].as_f64().unwrap()),
            short(h["high"].as_f64().unwrap())
        );
        let total: u64 = h["counts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .sum();
        // The bars are drawn from the counts; the number after them is their sum.
        rows.push((label, format!(" {total}")));
    }
    let b = &f["bytes"];
    if b.is_object() {
        let l = &b["length"];
        let length = ["min", "max", "mean"].map(|s| short(l[s].as_f64().unwrap()));
        rows.push((
            "length".into(),
            format!("{}..{}, mean {}", length[0], length[1], length[2]),
        ));
        rows.push((
            "distinct".into(),
            counted(&b["distinct"], &b["distinct_exact"]),
        ));
        let images = b["images"].as_object().unwrap();
        if images.is_empty() {
            let quoted = |v: &Value| format!("\"{}\"", v["value"].as_str().unwrap());
            rows.push((
                "top values".into(),
                top(&b["top"], &b["top_exact"], &quoted),
            ));
        } else {
            let span = |s: &Value| {
                let (lo, hi) = (&s[0], &s[1]);
                if lo == hi {
                    lo.to_string()
                } else {
                    format!("{lo}..{hi}")
                }
            };
            let cell = images
                .iter()
                .map(|(format, s)| {
                    format!(
                        "{format} {} {}x{}",
                        s["count"],
                        span(&s["width"]),
                        span(&s["height"])
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            rows.push(("images".into(), cell));
        }
    }
    if f["bool"].is_object() {
        rows.push((
            "true/false".into(),
            format!("{}/{}", f["bool"]["true"], f["bool"]["false"]),
        ));
    }
    let c = &f["classes"];
    if c.is_object() {
        let named = |v: &Value| format!("{} \"{}\"", v["value"], v["name"].as_str().unwrap());
        rows.push(("top values".into(), top(&c["top"], &c["top_exact"], &named)));
    }
    rows
}

/// A feature's table in the text: its name, and per row label the cell of each split.
fn table(section: &str) -> (String, Vec<(String, Vec<String>)>) {
    let mut lines = section.lines();
    let header = lines.next().unwrap();
    let name = header.split_whitespace().next().unwrap().to_string();
    // The split names title the columns: a cell starts where its title does (two columns on,
    // as the rows are indented by two).
    let starts: Vec<usize> = ["train", "validation"]
        .map(|split| header.find(&format!("  {split}")).unwrap() + 4)
        .to_vec();
    let rows = lines
        .filter(|l| !l.starts_with("  !"))
        .map(|line| {
            let chars: Vec<char> = line.chars().collect();
            let cell = |from: usize, to: usize| -> String {
                chars
                    .get(from.min(chars.len())..to.min(chars.len()))
                    .unwrap()
                    .iter()
                    .collect::<String>()
                    .trim()
                    .to_string()
            };
            let label = cell(0, starts[0]);
            let cells = vec![cell(starts[0], starts[1]), cell(starts[1], chars.len())];
            (label, cells)
        })
        .collect();
    (name, rows)
}

#[test]
fn every_text_cell_is_the_json_figure_rounded() {
    let dir = testdata("realworld/tfds/toy_parcels/2.0.0");
    let text = stdout(&run_in_process(["stats".as_ref(), dir.as_os_str()]));
    let json: Value = serde_json::from_str(&stdout(&run_in_process([
        "stats".as_ref(),
        "--json".as_ref(),
        dir.as_os_str(),
    ])))
    .unwrap();
    let splits = json["splits"].as_array().unwrap();
    let names: Vec<&str> = splits.iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["train", "validation"]);
    let sections: Vec<&str> = text.split("\n\n").collect();
    for (split, line) in splits.iter().zip(sections[0].lines()) {
        let kinds: Vec<String> = split["kinds"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, n)| format!("{n} {k}"))
            .collect();
        assert_eq!(
            line,
            format!(
                "{}: {} records ({})",
                names.iter().find(|n| line.starts_with(**n)).unwrap(),
                split["records"],
                kinds.join(", ")
            )
        );
    }
    let mut checked = 0;
    for section in &sections[1..] {
        let (feature, rows) = table(section);
        for (column, split) in splits.iter().enumerate() {
            let records = split["records"].as_u64().unwrap();
            let f = split["features"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["feature"] == feature.as_str())
                .unwrap_or_else(|| panic!("{feature} not in JSON"));
            let kind = &rows.iter().find(|(l, _)| l == "kind").unwrap().1[column];
            let declared = f["declared"]
                .as_str()
                .unwrap_or(f["kind"].as_str().unwrap());
            assert!(kind.starts_with(declared), "{feature}: {kind} for {f}");
            for (label, want) in expected(records, f) {
                let (_, cells) = rows
                    .iter()
                    .find(|(l, _)| *l == label)
                    .unwrap_or_else(|| panic!("{feature}: no row {label}\n{section}"));
                let got = &cells[column];
                if label.starts_with("histogram") {
                    assert!(
                        got.ends_with(&want),
                        "{feature} {label}: {got:?}, JSON {want:?}"
                    );
                } else {
                    assert_eq!(got, &want, "{feature} {label} in {}", names[column]);
                }
                checked += 1;
            }
        }
    }
    // 7 features in two splits, 4 to 10 rows each: 102 cells.
    assert!(checked > 100, "{checked} cells checked");
}

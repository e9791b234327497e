# Generalization gap of trained top-k MoEs vs Theorem 1 (compositional paper, Eq. 5, Eq. 17, derived).
# Left: the measured gap (test - train bounded loss) vs m, one line per (T, k), +- standard error.
# Right: the same gaps (solid, positive ones) beside Theorem 1 with Eq. 17's exact log C(T, k) (dashed)
# and the derived form (dotted), log-log: how far the bound sits above the gap.
# Usage: gnuplot -e "csv='results/trained_generalization_gap.csv'; png='results/trained_generalization_gap.png'" plots/trained_generalization_gap.gp
# Columns are selected by name (the CSV header).
if (!exists("csv")) csv = 'results/trained_generalization_gap.csv'
if (!exists("png")) png = 'results/trained_generalization_gap.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k}' | sort -n | uniq | tr '\\n' ' '", csv, name))
Ts = col_values("T")
ks = col_values("k")
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,600 enhanced font ",11"
  } else {
    set terminal png size 1400,600
  }
  set output png
} else {
  set terminal svg size 1400,600 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("Trained top-k MoEs (linear experts) on a noisy teacher: gap vs Theorem 1; %s seeds", trials_text)
set logscale x 2
set grid
set xlabel "training points m"
set ylabel "test - train loss, min(1, |f - y|)"
set key top right box opaque font ",9"
set title "measured generalization gap (mean +- s.e.)"
plot for [i = 1:words(Ts)] for [j = 1:words(ks)] \
     csv using ((column("T") == word(Ts, i) + 0 && column("k") == word(ks, j) + 0) ? column("m") : 1/0):"gap_mean":"gap_std_error" \
     with yerrorlines lw 2 lc (i - 1) * words(ks) + j dt i title sprintf("T = %s, k = %s", word(Ts, i), word(ks, j))
set logscale y 10
set ylabel "loss units (log)"
set title "gap (solid) vs Theorem 1: Eq. 17 (dashed), derived (dotted)"
set key off
plot for [i = 1:words(Ts)] for [j = 1:words(ks)] \
     csv using ((column("T") == word(Ts, i) + 0 && column("k") == word(ks, j) + 0 && column("gap_mean") > 0) ? column("m") : 1/0):"gap_mean" \
     with linespoints lw 2 lc (i - 1) * words(ks) + j notitle, \
     for [i = 1:words(Ts)] for [j = 1:words(ks)] \
     csv using ((column("T") == word(Ts, i) + 0 && column("k") == word(ks, j) + 0) ? column("m") : 1/0):"bound_eq17" \
     with lines dt 2 lw 1.5 lc (i - 1) * words(ks) + j notitle, \
     for [i = 1:words(Ts)] for [j = 1:words(ks)] \
     csv using ((column("T") == word(Ts, i) + 0 && column("k") == word(ks, j) + 0) ? column("m") : 1/0):"bound_derived" \
     with lines dt 3 lw 1.5 lc (i - 1) * words(ks) + j notitle
unset logscale y
unset multiplot
}

# The scaling settle-test (scaling paper, Lemma 3.7 + ERM; trained.scaling_gap).
# Panels 1-3 (N_act, D, E): the generalization gap of the bounded loss min(1, |f - y|) (points, +- s.e.
# over seeds) beside the uniform bound (solid) and its rate form sqrt(N_act log D / D) (dashed), and the
# MSE gap (points) beside the least-squares optimism 2 noise^2 N_act / D (dotted); log-log.
# Panel 4: the excess test risk (test MSE - noise^2) on each axis with the floor fit's slope in the key.
# Usage: gnuplot -e "csv='results/trained_scaling_gap.csv'; png='results/trained_scaling_gap.png'" plots/trained_scaling_gap.gp
if (!exists("csv")) csv = 'results/trained_scaling_gap.csv'
if (!exists("png")) png = 'results/trained_scaling_gap.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
axis_value(ax, name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) {if ($i == \"axis\") a = i; if ($i == \"%s\") k = i}; next} $a == \"%s\" {print $k; exit}'", csv, name, ax))
has_axis(ax) = strlen(axis_value(ax, "x")) > 0
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1600,1000 enhanced font ",11"
  } else {
    set terminal png size 1600,1000
  }
  set output png
} else {
  set terminal svg size 1600,1000 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 2, 2 title sprintf("Generalization gap of trained top-1 MoEs (Switch gate) vs the scaling paper's bound; trials: %s", trials_text)
set grid
set logscale xy
set key top left box opaque font ",9"
do for [ax in "active data experts"] {
  if (has_axis(ax)) {
    s = axis_value(ax, "gap_slope") + 0.0
    lo = axis_value(ax, "gap_slope_lo") + 0.0
    hi = axis_value(ax, "gap_slope_hi") + 0.0
    bs = axis_value(ax, "bound_slope") + 0.0
    ms = axis_value(ax, "mse_gap_slope") + 0.0
    set xlabel (ax eq "active" ? "active parameters N_{act}" : (ax eq "data" ? "training-set size D" : "experts E (k = 1)"))
    set ylabel "test - train loss"
    set title sprintf("%s: gap slope %.2f [%.2f, %.2f], bound slope %.2f, MSE-gap slope %.2f", ax, s, lo, hi, bs, ms)
    plot csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"gap_mean":"gap_std_error" with yerrorbars pt 7 lw 2 title "gap (bounded loss)", \
         csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"bound" with linespoints pt 6 lw 2 title "uniform bound (Lemma 3.7 + Hoeffding)", \
         csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"rate_form" with lines dt 2 lw 2 title "sqrt(N_{act} log D / D)", \
         csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"mse_gap_mean":"mse_gap_std_error" with yerrorbars pt 5 lw 1.5 title "gap (MSE)", \
         csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"optimism_linear" with lines dt 3 lw 2 title "2 {/Symbol s}^2 N_{act} / D"
  }
}
set xlabel "N_{act}, D or E"
set ylabel "excess test risk (test MSE - noise^2)"
set title "excess risk per axis (predicted slope: -2{/Symbol b}/d on N_{act} and E, -1 on D)"
plot for [ax in "active data experts"] csv using (stringcolumn("axis") eq ax ? column("x") : 1/0):"excess_mean":"excess_std_error" with yerrorlines lw 2 title ax
unset multiplot
unset logscale
}

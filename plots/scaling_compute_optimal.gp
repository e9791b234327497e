# Compute-optimal active parameters and tokens vs training FLOPs (F = c N D), closed form and Brent.
# Usage: gnuplot -e "csv='results/scaling_compute_optimal.csv'; png='results/scaling_compute_optimal.png'" plots/scaling_compute_optimal.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# scaling.compute_optimal: F, N_opt, D_opt, loss, N_opt_numeric, loss_numeric, exponent_N,
# exponent_D); the exponents and the title come from the CSV itself.
if (!exists("csv")) csv = 'results/scaling_compute_optimal.csv'
if (!exists("png")) png = 'results/scaling_compute_optimal.png'

set encoding utf8
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("sed -n 's/^# %s: //p' '%s' | head -1", key, csv))
first(col) = system(sprintf("awk -F, '/^#/{next} !h{for(i=1;i<=NF;i++)c[$i]=i;h=1;next} {print $c[\"%s\"]; exit}' '%s'", col, csv))
title_text = meta("title")
if (title_text eq "") title_text = "Compute-optimal frontier"
title_text = sprintf("%s: L = E_0 + A N^{-{/Symbol a}_N} + B D^{-{/Symbol a}_D}, F = %s N D; N ∝ F^{%.3f}, D ∝ F^{%.3f}", \
                     title_text, first("flops_per_param_token"), first("exponent_N") + 0, first("exponent_D") + 0)
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,600 enhanced font ",11" } else { set terminal png size 1400,600 }
    set output png
  } else {
    set terminal svg size 1400,600 enhanced font ",11" dynamic background "white"
    set output svg
  }
  set datafile separator comma
  set datafile columnheaders
  set multiplot layout 1, 2 title title_text
  set grid
  set logscale x
  set format x "10^{%L}"
  set xlabel "training FLOPs F"
  set key top left
  set logscale y
  set format y "10^{%L}"
  set ylabel ""
  set title "allocation"
  plot csv using "F":"N_opt" with lines lw 2 title "N_{act} (closed form)", \
       csv using "F":"N_opt_numeric" with points pt 6 title "N_{act} (Brent)", \
       csv using "F":"D_opt" with lines lw 2 title "tokens D"
  unset logscale y
  set format y "%g"
  set ylabel "loss"
  set title "loss at the optimum"
  set key top right box opaque  # the loss falls from the top left: the key goes where the curve is not
  plot csv using "F":"loss" with lines lw 2 title "L(N_{opt}, D_{opt})", csv using "F":"loss_numeric" with points pt 6 title "Brent"
  unset multiplot
}

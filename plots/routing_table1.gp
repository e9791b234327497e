# Table 1 of the granularity paper: configuration counts C(m, k) of frontier MoEs.
# Usage: gnuplot -e "csv='results/routing_table1.csv'; png='results/routing_table1.png'" plots/routing_table1.gp
# Writes png and, beside it, the same figure as SVG (png with .svg). Columns are read by name (study
# routing.configurations); the title comes from the CSV metadata.
if (!exists("csv")) csv = 'results/routing_table1.csv'
if (!exists("png")) png = 'results/routing_table1.png'
svg = (strlen(png) > 4 && png[strlen(png)-3:] eq ".png" ? png[1:strlen(png)-4] : png) . ".svg"
meta(key) = system(sprintf("grep -m1 '^# %s:' '%s' | sed 's/^# %s: *//'", key, csv, key))
title_text = meta("title")
if (title_text eq "") title_text = "Table 1: expert configurations C(m, k) of frontier MoEs"
title_text = title_text . " (granularity paper)"

set encoding utf8
set datafile separator comma
set datafile columnheaders
stats csv using "log10_configurations" name "L" nooutput
do for [out in "png svg"] {
  if (out eq "png") {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) { set terminal pngcairo size 1400,650 enhanced font ",11" } else { set terminal png size 1200,600 }
    set output png
  } else {
    set terminal svg size 1400,650 enhanced font ",11" background "white"
    set output svg
  }
  set title title_text
  set grid ytics
  set style fill solid 0.6
  set boxwidth 0.6
  set yrange [0:L_max * 1.27]
  set ylabel "log_{10} C(m, k)"
  set xtics rotate by -25 font ",10"
  set key off
  plot csv using 0:"log10_configurations":xtic(stringcolumn("model")) with boxes lc rgb "#1f77b4", \
       csv using 0:"log10_configurations":(sprintf("%d of %d\nC = %.3g\nsparsity %g%%\n(printed %g%%)", column("active"), column("experts"), \
         column("configurations"), column("sparsity_percent"), column("printed_sparsity_percent"))) with labels offset 0, 3.3 font ",9"
  set output
}
